package org.jacap.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jacap.engine.GenerationOptions;
import org.jacap.sampling.SamplerConfig;
import org.jacap.tokenizer.ChatMessage;

/**
 * A parsed {@code /v1/chat/completions} or {@code /v1/completions} body. Every field is checked
 * here; a bad one is a 400 that names it.
 *
 * @param messages     the conversation (chat), else null
 * @param prompt       the prompt text (completions), else null
 * @param promptIds    the prompt as token ids (completions given an array), else null
 * @param options      what to generate
 * @param stream       answer with server-sent events
 * @param includeUsage {@code stream_options.include_usage}: a last chunk with the usage
 * @param logprobs     whether to return log-probs
 * @param topLogprobs  how many alternatives each token shows (0 with {@code logprobs}: the chosen one only)
 * @param cachePrompt  reuse the slot's KV cache (llama-server's {@code cache_prompt}, default true)
 */
record CompletionRequest(
        List<ChatMessage> messages,
        String prompt,
        int[] promptIds,
        GenerationOptions options,
        boolean stream,
        boolean includeUsage,
        boolean logprobs,
        int topLogprobs,
        boolean cachePrompt) {

    /** OpenAI's limit on {@code top_logprobs}. */
    static final int MAX_TOP_LOGPROBS = 20;

    static CompletionRequest parseChat(JsonNode body, int maxTokensLimit) {
        requireObject(body);
        JsonNode list = body.get("messages");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw ApiError.badField("messages", "'messages' must be a non-empty array of {role, content}");
        }
        List<ChatMessage> messages = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            messages.add(message(list.get(i), "messages[" + i + "]"));
        }
        boolean logprobs = RequestFields.bool(body, "logprobs", false);
        int top = RequestFields.integer(body, "top_logprobs", 0, 0, MAX_TOP_LOGPROBS);
        if (top > 0 && !logprobs) {
            throw ApiError.badField("top_logprobs", "'top_logprobs' needs 'logprobs': true");
        }
        int alternatives = logprobs ? Math.max(top, 1) : 0; // the chosen token's needs one computed list
        return new CompletionRequest(
                List.copyOf(messages),
                null,
                null,
                options(body, maxTokensLimit, alternatives),
                RequestFields.bool(body, "stream", false),
                includeUsage(body),
                logprobs,
                top,
                RequestFields.bool(body, "cache_prompt", true));
    }

    static CompletionRequest parseCompletion(JsonNode body, int maxTokensLimit) {
        requireObject(body);
        JsonNode p = body.get("prompt");
        String text = null;
        int[] ids = null;
        if (p != null && p.isTextual()) {
            text = p.asText();
        } else if (p != null && p.isArray() && !p.isEmpty() && p.get(0).isIntegralNumber()) {
            ids = new int[p.size()];
            for (int i = 0; i < ids.length; i++) {
                if (!p.get(i).canConvertToInt()) {
                    throw ApiError.badField("prompt", "'prompt' token ids must be integers");
                }
                ids[i] = p.get(i).asInt();
            }
        } else if (p != null && p.isArray() && p.size() == 1 && p.get(0).isTextual()) {
            text = p.get(0).asText();
        } else {
            throw ApiError.badField("prompt", "'prompt' must be a string, a one-string array or an array of token ids");
        }
        // The legacy API's logprobs is the number of alternatives (0: the chosen token's only).
        JsonNode lp = body.get("logprobs");
        boolean logprobs = lp != null && !lp.isNull();
        int top = logprobs ? RequestFields.integer(body, "logprobs", 0, 0, MAX_TOP_LOGPROBS) : 0;
        return new CompletionRequest(
                null,
                text,
                ids,
                options(body, maxTokensLimit, logprobs ? Math.max(top, 1) : 0),
                RequestFields.bool(body, "stream", false),
                includeUsage(body),
                logprobs,
                top,
                RequestFields.bool(body, "cache_prompt", true));
    }

    /** Fields whose meaning Jacap does not implement are refused rather than silently ignored. */
    private static void refuseUnsupported(JsonNode body) {
        JsonNode n = body.get("n");
        if (n != null && !n.isNull() && !(n.canConvertToInt() && n.asInt() == 1)) {
            throw ApiError.badField("n", "'n' must be 1: one choice per request");
        }
        JsonNode tools = body.get("tools");
        if (tools != null && !tools.isNull() && !(tools.isArray() && tools.isEmpty())) {
            throw ApiError.badField("tools", "tools (function calling) are not supported");
        }
        JsonNode format = body.get("response_format");
        if (format != null
                && !format.isNull()
                && !"text".equals(format.path("type").asText())) {
            throw ApiError.badField("response_format", "only {\"type\":\"text\"} is supported (no JSON mode)");
        }
    }

    private static GenerationOptions options(JsonNode body, int maxTokensLimit, int logprobs) {
        refuseUnsupported(body);
        String maxField = body.has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
        int maxTokens = RequestFields.integer(body, maxField, maxTokensLimit, 1, maxTokensLimit);
        SamplerConfig sampler = SamplerConfig.defaults();
        JsonNode t = body.get("temperature");
        if (t != null && !t.isNull()) {
            double v = RequestFields.number(t, "temperature");
            if (!(v >= 0 && v <= 2)) {
                throw ApiError.badField("temperature", "'temperature' must be in [0, 2] (got " + v + ")");
            }
            sampler = sampler.withTemperature((float) v);
        }
        JsonNode p = body.get("top_p");
        if (p != null && !p.isNull()) {
            double v = RequestFields.number(p, "top_p");
            if (!(v > 0 && v <= 1)) {
                throw ApiError.badField("top_p", "'top_p' must be in (0, 1] (got " + v + ")");
            }
            sampler = sampler.withTopP((float) v);
        }
        JsonNode seed = body.get("seed");
        if (seed != null && !seed.isNull()) {
            if (!seed.isIntegralNumber() || !seed.canConvertToLong() || seed.asLong() < 0) {
                throw ApiError.badField("seed", "'seed' must be a non-negative integer");
            }
            sampler = sampler.withSeed(seed.asLong());
        }
        return GenerationOptions.defaults()
                .withMaxTokens(maxTokens)
                .withSampler(sampler)
                .withStopStrings(stops(body.get("stop")))
                .withLogprobs(logprobs)
                .withIgnoreEos(RequestFields.bool(body, "ignore_eos", false));
    }

    private static List<String> stops(JsonNode stop) {
        if (stop == null || stop.isNull()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (stop.isTextual()) {
            out.add(stop.asText());
        } else if (stop.isArray() && stop.size() <= 16) {
            for (JsonNode s : stop) {
                if (!s.isTextual()) {
                    throw ApiError.badField("stop", "'stop' entries must be strings");
                }
                out.add(s.asText());
            }
        } else {
            throw ApiError.badField("stop", "'stop' must be a string or an array of at most 16 strings");
        }
        if (out.stream().anyMatch(String::isEmpty)) {
            throw ApiError.badField("stop", "'stop' strings must not be empty");
        }
        return out;
    }

    private static ChatMessage message(JsonNode m, String where) {
        if (m == null || !m.isObject()) {
            throw ApiError.badField(where, "'" + where + "' must be an object with 'role' and 'content'");
        }
        JsonNode role = m.get("role");
        if (role == null || !role.isTextual()) {
            throw ApiError.badField(where + ".role", "'" + where + ".role' must be a string");
        }
        String r = role.asText().toLowerCase(Locale.ROOT);
        if (r.equals("developer")) {
            r = "system"; // OpenAI's newer name for the system role
        }
        if (!r.equals("system") && !r.equals("user") && !r.equals("assistant")) {
            throw ApiError.badField(
                    where + ".role",
                    "'" + where + ".role' must be system, developer, user or assistant (got '" + role.asText() + "')");
        }
        return new ChatMessage(r, content(m.get("content"), where + ".content"));
    }

    /** A string, or OpenAI's list of parts of which only {"type":"text"} ones are supported. */
    private static String content(JsonNode c, String where) {
        if (c == null || c.isNull()) {
            return "";
        }
        if (c.isTextual()) {
            return c.asText();
        }
        if (c.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : c) {
                if (!part.isObject()
                        || !"text".equals(part.path("type").asText())
                        || !part.path("text").isTextual()) {
                    throw ApiError.badField(
                            where,
                            "'" + where + "' parts must be {\"type\":\"text\",\"text\":...}"
                                    + " (images, audio and files are not supported)");
                }
                text.append(part.get("text").asText());
            }
            return text.toString();
        }
        throw ApiError.badField(where, "'" + where + "' must be a string or an array of text parts");
    }

    private static boolean includeUsage(JsonNode body) {
        JsonNode so = body.get("stream_options");
        if (so == null || so.isNull()) {
            return false;
        }
        if (!so.isObject()) {
            throw ApiError.badField("stream_options", "'stream_options' must be an object");
        }
        return RequestFields.bool(so, "include_usage", false);
    }

    private static void requireObject(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiError.badField(null, "the request body must be a JSON object");
        }
    }
}
