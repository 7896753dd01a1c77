package org.jacap.server;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jacap.engine.KvCacheStats;

/** The server's counters, written out in Prometheus' text format for {@code GET /metrics}. */
final class Metrics {
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    final LongAdder promptTokens = new LongAdder();
    final LongAdder cachedPromptTokens = new LongAdder();
    final LongAdder generatedTokens = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final AtomicLong promptNanos = new AtomicLong();
    final AtomicLong decodeNanos = new AtomicLong();

    void request(String endpoint, int status) {
        requests.computeIfAbsent(endpoint + "\u0000" + status, k -> new LongAdder())
                .increment();
    }

    String render(boolean loaded, SlotPool pool) {
        StringBuilder out = new StringBuilder(2048);
        gauge(out, "jacap_model_loaded", "1 once the model is loaded", loaded ? 1 : 0);
        out.append("# HELP jacap_requests_total HTTP requests by endpoint and status\n");
        out.append("# TYPE jacap_requests_total counter\n");
        new TreeMap<>(requests).forEach((k, v) -> {
            String[] parts = k.split("\u0000");
            out.append("jacap_requests_total{endpoint=\"")
                    .append(parts[0])
                    .append("\",status=\"")
                    .append(parts[1])
                    .append("\"} ")
                    .append(v.sum())
                    .append('\n');
        });
        counter(out, "jacap_prompt_tokens_total", "prompt tokens of all requests", promptTokens.sum());
        counter(
                out,
                "jacap_prompt_tokens_cached_total",
                "prompt tokens found in a slot's KV cache (not evaluated again)",
                cachedPromptTokens.sum());
        counter(out, "jacap_generated_tokens_total", "tokens generated", generatedTokens.sum());
        counter(
                out,
                "jacap_requests_cancelled_total",
                "generations stopped by a disconnect or the time limit",
                cancelled.sum());
        counterSeconds(out, "jacap_prompt_seconds_total", "time evaluating prompts", promptNanos.get());
        counterSeconds(out, "jacap_decode_seconds_total", "time in single-token forward passes", decodeNanos.get());
        if (pool != null) {
            gauge(out, "jacap_slots", "conversation slots", pool.slots().size());
            gauge(out, "jacap_slots_busy", "slots generating now", pool.busySlots());
            gauge(out, "jacap_requests_queued", "requests waiting for a slot", pool.waiting());
            header(out, "jacap_kv_entries", "KV entries a slot holds (all layers and KV heads)", "gauge");
            for (Slot s : pool.slots()) {
                slotLine(out, "jacap_kv_entries", s.id, s.stats().entries());
            }
            header(out, "jacap_kv_bytes", "bytes of the KV entries a slot holds", "gauge");
            for (Slot s : pool.slots()) {
                slotLine(out, "jacap_kv_bytes", s.id, s.stats().bytesInUse());
            }
            header(out, "jacap_kv_bytes_allocated", "bytes allocated for a slot's KV cache", "gauge");
            for (Slot s : pool.slots()) {
                slotLine(out, "jacap_kv_bytes_allocated", s.id, s.stats().bytesAllocated());
            }
            header(out, "jacap_kv_evicted_entries_total", "KV entries a slot's eviction removed", "counter");
            for (Slot s : pool.slots()) {
                slotLine(out, "jacap_kv_evicted_entries_total", s.id, s.stats().entriesEvicted());
            }
            header(out, "jacap_eviction_seconds_total", "time a slot spent choosing what to evict", "counter");
            for (Slot s : pool.slots()) {
                KvCacheStats st = s.stats();
                out.append("jacap_eviction_seconds_total{slot=\"")
                        .append(s.id)
                        .append("\"} ")
                        .append(String.format(Locale.ROOT, "%.6f", st.evictionNanos() / 1e9))
                        .append('\n');
            }
        }
        return out.toString();
    }

    private static void slotLine(StringBuilder out, String name, int slot, long value) {
        out.append(name)
                .append("{slot=\"")
                .append(slot)
                .append("\"} ")
                .append(value)
                .append('\n');
    }

    private static void header(StringBuilder out, String name, String help, String type) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void gauge(StringBuilder out, String name, String help, long value) {
        header(out, name, help, "gauge");
        out.append(name).append(' ').append(value).append('\n');
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        header(out, name, help, "counter");
        out.append(name).append(' ').append(value).append('\n');
    }

    private static void counterSeconds(StringBuilder out, String name, String help, long nanos) {
        header(out, name, help, "counter");
        out.append(name)
                .append(' ')
                .append(String.format(Locale.ROOT, "%.6f", nanos / 1e9))
                .append('\n');
    }
}
