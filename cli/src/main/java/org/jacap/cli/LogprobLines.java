package org.jacap.cli;

import org.jacap.engine.TokenEvent;
import org.jacap.engine.TokenLogprobs;
import org.jacap.tokenizer.Tokenizer;

/**
 * {@code run --logprobs}: one compact JSON object per generated token,
 * {@code {"i":0,"id":..,"piece":..,"logprob":..,"top":[{"id":..,"piece":..,"logprob":..},...]}}.
 */
final class LogprobLines {
    private LogprobLines() {}

    static String line(int index, TokenEvent e, Tokenizer tokenizer) {
        TokenLogprobs lp = e.logprobs();
        StringBuilder sb = new StringBuilder(64 + 48 * lp.top().size());
        sb.append("{\"i\":").append(index);
        entry(sb, e.id(), tokenizer.piece(e.id()), lp.logprob());
        sb.append(",\"top\":[");
        for (int k = 0; k < lp.top().size(); k++) {
            TokenLogprobs.Alternative a = lp.top().get(k);
            sb.append(k == 0 ? "{" : ",{");
            sb.append("\"id\":").append(a.id());
            sb.append(",\"piece\":");
            Json.string(sb, a.piece());
            sb.append(",\"logprob\":").append(a.logprob()).append('}');
        }
        return sb.append("]}").toString();
    }

    private static void entry(StringBuilder sb, int id, String piece, float logprob) {
        sb.append(",\"id\":").append(id).append(",\"piece\":");
        Json.string(sb, piece);
        sb.append(",\"logprob\":").append(logprob);
    }
}
