package org.jacap.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.EvictionMode;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;
import org.jacap.kv.eviction.EvictionSettings;
import org.jacap.sampling.SamplerConfig;
import org.jacap.tokenizer.ChatMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 16 streaming clients at once on 4 slots (the rest queued): every answer arrives whole, token for
 * token what the library generates alone, and every slot's KV cache stays within its budget.
 */
class LoadTest {
    private static final int CLIENTS = 16;
    private static final int SLOTS = 4;
    private static final int MAX_TOKENS = 24;
    private static final int BUDGET = 32;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sixteenConcurrentStreamsLoseAndDuplicateNothing() throws Exception {
        EvictionMode budget = EvictionMode.evict(
                EvictionSettings.budget(org.jacap.kv.eviction.EvictionPolicies.policy("streaming", "uniform"), BUDGET));
        try (Engine engine = TestServer.load(TestServer.stories());
                TestServer server = TestServer.start(
                        engine,
                        ServerOptions.defaults()
                                .withParallel(SLOTS)
                                .withQueue(CLIENTS)
                                .withEviction(budget))) {
            List<Future<String>> answers = new ArrayList<>();
            try (ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
                for (int c = 0; c < CLIENTS; c++) {
                    String prompt = "Tell me story number " + c + ".";
                    answers.add(clients.submit(() -> streamOne(server, prompt)));
                }
            }
            GenerationOptions greedy = GenerationOptions.defaults()
                    .withSampler(SamplerConfig.greedy())
                    .withMaxTokens(MAX_TOKENS);
            for (int c = 0; c < CLIENTS; c++) {
                GenerationResult want;
                try (Session alone = engine.newSession(SessionOptions.defaults().withEviction(budget))) {
                    want = alone.chat(
                            List.of(ChatMessage.user("Tell me story number " + c + ".")), greedy, (id, t) -> true);
                }
                assertThat(answers.get(c).get()).as("client %d", c).isEqualTo(want.text());
            }
            assertThat(server.metric("jacap_requests_total{endpoint=\"/v1/chat/completions\",status=\"200\"}"))
                    .isEqualTo(CLIENTS);
            var config = engine.config();
            long bound = (long) (BUDGET + EvictionSettings.defaultSlack(BUDGET))
                    * config.blockCount()
                    * config.headCountKv();
            for (int s = 0; s < SLOTS; s++) {
                assertThat(server.metric("jacap_kv_entries{slot=\"" + s + "\"}"))
                        .isPositive()
                        .isLessThanOrEqualTo(bound);
            }
            assertThat(server.metric("jacap_requests_queued")).isZero();
        }
    }

    /** One streamed chat; checks the stream's own accounting and returns the text. */
    private static String streamOne(TestServer server, String prompt) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("messages", List.of(Map.of("role", "user", "content", prompt)));
        body.put("temperature", 0);
        body.put("max_tokens", MAX_TOKENS);
        body.put("stream", true);
        body.put("stream_options", Map.of("include_usage", true));
        body.put("logprobs", true);
        body.put("cache_prompt", false); // a fresh cache: the answer must be the library's, bit for bit
        List<String> events = server.stream("/v1/chat/completions", body);
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(events.stream().filter("[DONE]"::equals)).hasSize(1);
        StringBuilder text = new StringBuilder();
        int tokens = 0;
        int usageTokens = -1;
        String id = null;
        for (String e : events.subList(0, events.size() - 1)) {
            JsonNode chunk = TestServer.JSON.readTree(e);
            if (id == null) {
                id = chunk.get("id").asText();
            }
            assertThat(chunk.get("id").asText()).isEqualTo(id); // no chunk of another stream
            if (chunk.has("usage")) {
                usageTokens = chunk.get("usage").get("completion_tokens").asInt();
                continue;
            }
            JsonNode choice = chunk.get("choices").get(0);
            text.append(choice.get("delta").path("content").asText(""));
            JsonNode lp = choice.get("logprobs");
            if (lp != null && !lp.isNull()) {
                tokens += lp.get("content").size();
            }
        }
        assertThat(tokens).as("one log-prob entry per generated token").isEqualTo(usageTokens);
        return text.toString();
    }
}
