package org.jacap.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.EvictionMode;
import org.jacap.kv.eviction.EvictionSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A 2,000-turn conversation through the HTTP API in a KV budget of 64 entries per head: every
 * turn evaluates only its new tokens, and the cache never holds more than budget + slack.
 */
class LongConversationTest {
    private static final int TURNS = 2000;
    private static final int BUDGET = 64;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void twoThousandTurnsStayInTheBudget() {
        EvictionMode budget = EvictionMode.evict(
                EvictionSettings.budget(org.jacap.kv.eviction.EvictionPolicies.policy("streaming", "uniform"), BUDGET));
        try (Engine engine = TestServer.load(TestServer.stories());
                TestServer server =
                        TestServer.start(engine, ServerOptions.defaults().withEviction(budget))) {
            var config = engine.config();
            long bound = (long) (BUDGET + EvictionSettings.defaultSlack(BUDGET))
                    * config.blockCount()
                    * config.headCountKv();
            ObjectNode body = TestServer.JSON.createObjectNode();
            body.put("temperature", 0).put("max_tokens", 2);
            ArrayNode messages = body.putArray("messages");
            int lastPrompt = 0;
            long maxEntries = 0;
            for (int turn = 0; turn < TURNS; turn++) {
                messages.addObject().put("role", "user").put("content", "Turn " + turn + ".");
                TestServer.Reply r = server.post("/v1/chat/completions", body);
                assertThat(r.status()).as("turn %d: %s", turn, r.text()).isEqualTo(200);
                JsonNode usage = r.body().get("usage");
                int prompt = usage.get("prompt_tokens").asInt();
                int cached =
                        usage.get("prompt_tokens_details").get("cached_tokens").asInt();
                if (turn > 0) {
                    assertThat(cached)
                            .as("turn %d reuses the conversation so far", turn)
                            .isGreaterThanOrEqualTo(lastPrompt);
                    assertThat(prompt - cached)
                            .as("turn %d evaluates only its new tokens", turn)
                            .isLessThan(40); // "User: Turn 1999.\nAssistant:": ~25 tokens of this small vocabulary
                }
                lastPrompt = prompt;
                String answer = r.body()
                        .get("choices")
                        .get(0)
                        .get("message")
                        .get("content")
                        .asText();
                messages.addObject().put("role", "assistant").put("content", answer);
                if (turn % 250 == 0) {
                    maxEntries = Math.max(maxEntries, (long) server.metric("jacap_kv_entries{slot=\"0\"}"));
                }
            }
            maxEntries = Math.max(maxEntries, (long) server.metric("jacap_kv_entries{slot=\"0\"}"));
            assertThat(lastPrompt).isGreaterThan(20 * BUDGET); // positions ran far past what the cache holds
            assertThat(maxEntries).isPositive().isLessThanOrEqualTo(bound);
            assertThat(server.metric("jacap_kv_evicted_entries_total{slot=\"0\"}"))
                    .isPositive();
        }
    }
}
