package org.jacap.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jacap.JacapException;
import org.jacap.engine.CancellationToken;
import org.jacap.engine.Engine;
import org.jacap.engine.FinishReason;
import org.jacap.engine.Generation;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.engine.TokenEvent;
import org.jacap.engine.TokenLogprobs;
import org.jacap.tokenizer.ChatMessage;
import org.jacap.tokenizer.Tokenizer;

/**
 * {@code POST /v1/chat/completions} and {@code POST /v1/completions}: takes a slot, generates,
 * answers in one JSON object or as server-sent events. A client that goes away while streaming
 * stops the generation at its next token; the time limit stops it too.
 */
final class GenerationEndpoint {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Engine engine;
    private final String modelName;
    private final SlotPool pool;
    private final Metrics metrics;
    private final ServerOptions options;
    private final ScheduledExecutorService timer;

    GenerationEndpoint(
            Engine engine,
            String modelName,
            SlotPool pool,
            Metrics metrics,
            ServerOptions options,
            ScheduledExecutorService timer) {
        this.engine = engine;
        this.modelName = modelName;
        this.pool = pool;
        this.metrics = metrics;
        this.options = options;
        this.timer = timer;
    }

    void handle(Exchange ex, boolean chat) throws IOException, InterruptedException {
        CompletionRequest req = chat
                ? CompletionRequest.parseChat(ex.jsonBody(), options.maxTokens())
                : CompletionRequest.parseCompletion(ex.jsonBody(), options.maxTokens());
        int[] promptIds = chat ? null : completionIds(req);
        long timeout = options.requestTimeout().toNanos();
        Slot slot = pool.acquire(chat ? req.messages() : List.of(), timeout);
        List<ChatMessage> history = List.of();
        try {
            Session session = slot.session;
            if (!req.cachePrompt()) {
                session.reset();
            }
            CancellationToken cancel = new CancellationToken();
            AtomicBoolean timedOut = new AtomicBoolean();
            ScheduledFuture<?> deadline = timer.schedule(
                    () -> {
                        timedOut.set(true);
                        cancel.cancel();
                    },
                    timeout,
                    TimeUnit.NANOSECONDS);
            try {
                GenerationOptions opts = req.options().withCancellation(cancel);
                Generation g;
                try {
                    g = chat ? session.startChat(req.messages(), opts) : session.startFrom(promptIds, opts);
                } catch (JacapException e) {
                    throw ApiError.badField(chat ? "messages" : "prompt", e.getMessage());
                }
                run(ex, chat, req, g, timedOut);
            } finally {
                deadline.cancel(false);
            }
            history = chat ? session.history() : List.of();
        } finally {
            pool.release(slot, history);
        }
    }

    private int[] completionIds(CompletionRequest req) {
        Tokenizer tok = engine.tokenizer();
        if (req.promptIds() != null) {
            for (int id : req.promptIds()) {
                if (id < 0 || id >= tok.vocabSize()) {
                    throw ApiError.badField(
                            "prompt", "token id " + id + " is outside the vocabulary [0, " + tok.vocabSize() + ")");
                }
            }
            return req.promptIds();
        }
        return tok.encode(req.prompt(), tok.addBosByDefault(), true); // a raw prompt may hold special tokens
    }

    private void run(Exchange ex, boolean chat, CompletionRequest req, Generation g, AtomicBoolean timedOut)
            throws IOException {
        String id =
                (chat ? "chatcmpl-" : "cmpl-") + UUID.randomUUID().toString().replace("-", "");
        long created = System.currentTimeMillis() / 1000;
        Tokenizer tok = engine.tokenizer();
        StringBuilder text = new StringBuilder();
        ArrayNode logprobs = NODES.arrayNode();
        CompletionLogprobs legacy = new CompletionLogprobs();
        boolean disconnected = false;
        try {
            if (req.stream()) {
                ex.startEvents();
                if (chat) {
                    ObjectNode delta =
                            NODES.objectNode().put("role", "assistant").put("content", "");
                    ex.event(chunk(id, created, true, delta, null, null));
                }
            }
            while (g.hasNext()) {
                TokenEvent e = g.next();
                // An end-of-generation token is not part of the answer: its event only flushes held text.
                boolean counted = req.logprobs() && !(g.isFinished() && tok.isEndOfGeneration(e.id()));
                ObjectNode choiceLogprobs = null;
                if (counted && chat) {
                    ObjectNode lp = chatLogprob(e, tok.piece(e.id()), req.topLogprobs());
                    logprobs.add(lp);
                    choiceLogprobs = NODES.objectNode();
                    choiceLogprobs.putArray("content").add(lp);
                } else if (counted) {
                    legacy.add(e, tok.piece(e.id()), text.length(), req.topLogprobs());
                    choiceLogprobs = legacy.last(text.length());
                }
                text.append(e.text());
                if (req.stream() && (!e.text().isEmpty() || counted)) {
                    ex.event(
                            chat
                                    ? chunk(
                                            id,
                                            created,
                                            true,
                                            NODES.objectNode().put("content", e.text()),
                                            choiceLogprobs,
                                            null)
                                    : completionChunk(id, created, e.text(), choiceLogprobs, null));
                }
            }
        } catch (IOException gone) {
            disconnected = true; // the client closed the stream: stop generating, nobody reads the rest
            g.cancel();
        } finally {
            g.cancel();
        }
        GenerationResult r = g.result();
        int completion = r.generatedTokens(); // the EOS is not counted
        metrics.promptTokens.add(r.promptTokens() + r.reusedTokens());
        metrics.cachedPromptTokens.add(r.reusedTokens());
        metrics.generatedTokens.add(completion);
        metrics.promptNanos.addAndGet(r.timings().promptEvalNanos());
        metrics.decodeNanos.addAndGet(r.timings().evalNanos());
        if (r.finishReason() == FinishReason.CANCELLED) {
            metrics.cancelled.increment();
        }
        if (disconnected) {
            return;
        }
        String finish = finishReason(r.finishReason(), timedOut.get());
        ObjectNode usage = usage(r, completion);
        if (req.stream()) {
            if (chat) {
                ex.event(chunk(id, created, true, NODES.objectNode(), null, finish));
            } else {
                ex.event(completionChunk(id, created, "", null, finish));
            }
            if (req.includeUsage()) {
                ObjectNode last = base(id, created, chat ? "chat.completion.chunk" : "text_completion");
                last.putArray("choices");
                last.set("usage", usage);
                ex.event(last);
            }
            ex.eventText("[DONE]");
            return;
        }
        ObjectNode body = base(id, created, chat ? "chat.completion" : "text_completion");
        ObjectNode choice = onlyChoice(body);
        if (chat) {
            choice.putObject("message").put("role", "assistant").put("content", text.toString());
            if (req.logprobs()) {
                choice.putObject("logprobs").set("content", logprobs);
            } else {
                choice.putNull("logprobs");
            }
        } else {
            choice.put("text", text.toString());
            if (req.logprobs()) {
                choice.set("logprobs", legacy.all());
            } else {
                choice.putNull("logprobs");
            }
        }
        choice.put("finish_reason", finish);
        body.set("usage", usage);
        ex.sendJson(200, body);
    }

    private static String finishReason(FinishReason reason, boolean timedOut) {
        return switch (reason) {
            case EOS, STOP_STRING -> "stop";
            case MAX_TOKENS, CONTEXT_FULL -> "length";
            case CANCELLED -> timedOut ? "length" : "stop";
        };
    }

    private static ObjectNode usage(GenerationResult r, int completion) {
        int prompt = r.promptTokens() + r.reusedTokens();
        ObjectNode u = NODES.objectNode();
        u.put("prompt_tokens", prompt);
        u.put("completion_tokens", completion);
        u.put("total_tokens", prompt + completion);
        u.putObject("prompt_tokens_details").put("cached_tokens", r.reusedTokens());
        return u;
    }

    private ObjectNode base(String id, long created, String object) {
        ObjectNode o = NODES.objectNode();
        o.put("id", id);
        o.put("object", object);
        o.put("created", created);
        o.put("model", modelName);
        return o;
    }

    private ObjectNode chunk(
            String id, long created, boolean chat, ObjectNode delta, ObjectNode logprobs, String finish) {
        ObjectNode o = base(id, created, "chat.completion.chunk");
        ObjectNode c = onlyChoice(o);
        c.set("delta", delta);
        endChunkChoice(c, logprobs, finish);
        return o;
    }

    private ObjectNode completionChunk(String id, long created, String text, ObjectNode logprobs, String finish) {
        ObjectNode o = base(id, created, "text_completion");
        ObjectNode c = onlyChoice(o);
        c.put("text", text);
        endChunkChoice(c, logprobs, finish);
        return o;
    }

    /** The one element of {@code o}'s {@code choices} array, its {@code index} 0 set. */
    private static ObjectNode onlyChoice(ObjectNode o) {
        ObjectNode c = o.putArray("choices").addObject();
        c.put("index", 0);
        return c;
    }

    /** A streamed choice's last fields: its logprobs ({@code null} when none) and finish reason. */
    private static void endChunkChoice(ObjectNode c, ObjectNode logprobs, String finish) {
        c.set("logprobs", logprobs == null ? NODES.nullNode() : logprobs);
        c.put("finish_reason", finish);
    }

    /** OpenAI's chat log-prob entry: token, logprob, UTF-8 bytes, top_logprobs. */
    private static ObjectNode chatLogprob(TokenEvent e, String piece, int top) {
        TokenLogprobs lp = e.logprobs();
        ObjectNode o = entry(piece, lp.logprob());
        ArrayNode alts = o.putArray("top_logprobs");
        for (int i = 0; i < Math.min(top, lp.top().size()); i++) {
            TokenLogprobs.Alternative a = lp.top().get(i);
            alts.add(entry(a.piece(), a.logprob()));
        }
        return o;
    }

    static ObjectNode entry(String token, float logprob) {
        ObjectNode o = NODES.objectNode();
        o.put("token", token);
        o.put("logprob", logprob);
        ArrayNode bytes = o.putArray("bytes");
        for (byte b : token.getBytes(StandardCharsets.UTF_8)) {
            bytes.add(b & 0xff);
        }
        return o;
    }
}
