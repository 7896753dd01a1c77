package org.jacap.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jacap.engine.TokenEvent;
import org.jacap.engine.TokenLogprobs;

/**
 * The legacy {@code /v1/completions} log-probs: parallel arrays {@code tokens},
 * {@code token_logprobs}, {@code top_logprobs} (token → log-prob objects) and {@code text_offset}.
 */
final class CompletionLogprobs {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ArrayNode tokens = NODES.arrayNode();
    private final ArrayNode logprobs = NODES.arrayNode();
    private final ArrayNode top = NODES.arrayNode();
    private final ArrayNode offsets = NODES.arrayNode();

    void add(TokenEvent e, String piece, int offset, int alternatives) {
        TokenLogprobs lp = e.logprobs();
        tokens.add(piece);
        logprobs.add(lp.logprob());
        top.add(topObject(lp, alternatives));
        offsets.add(offset);
    }

    /** The last token's entry alone, for a stream chunk. */
    ObjectNode last(int offset) {
        int i = tokens.size() - 1;
        ObjectNode o = NODES.objectNode();
        o.putArray("tokens").add(tokens.get(i));
        o.putArray("token_logprobs").add(logprobs.get(i));
        o.putArray("top_logprobs").add(top.get(i));
        o.putArray("text_offset").add(offset);
        return o;
    }

    ObjectNode all() {
        ObjectNode o = NODES.objectNode();
        o.set("tokens", tokens);
        o.set("token_logprobs", logprobs);
        o.set("top_logprobs", top);
        o.set("text_offset", offsets);
        return o;
    }

    private static ObjectNode topObject(TokenLogprobs lp, int alternatives) {
        ObjectNode o = NODES.objectNode();
        for (int i = 0; i < Math.min(alternatives, lp.top().size()); i++) {
            o.put(lp.top().get(i).piece(), lp.top().get(i).logprob());
        }
        return o;
    }
}
