package org.jacap.server;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
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
            perSlot(
                    out,
                    pool,
                    "jacap_kv_entries",
                    "KV entries a slot holds (all layers and KV heads)",
                    "gauge",
                    KvCacheStats::entries);
            perSlot(
                    out,
                    pool,
                    "jacap_kv_bytes",
                    "bytes of the KV entries a slot holds",
                    "gauge",
                    KvCacheStats::bytesInUse);
            perSlot(
                    out,
                    pool,
                    "jacap_kv_bytes_allocated",
                    "bytes allocated for a slot's KV cache",
                    "gauge",
                    KvCacheStats::bytesAllocated);
            perSlot(
                    out,
                    pool,
                    "jacap_kv_evicted_entries_total",
                    "KV entries a slot's eviction removed",
                    "counter",
                    KvCacheStats::entriesEvicted);
            perSlot(
                    out,
                    pool,
                    "jacap_eviction_seconds_total",
                    "time a slot spent choosing what to evict",
                    "counter",
                    st -> seconds(st.evictionNanos()));
        }
        return out.toString();
    }

    /** One metric with a line a slot, its value read from the slot's KV statistics at that line. */
    private static void perSlot(
            StringBuilder out,
            SlotPool pool,
            String name,
            String help,
            String type,
            Function<KvCacheStats, Object> value) {
        header(out, name, help, type);
        for (Slot s : pool.slots()) {
            out.append(name)
                    .append("{slot=\"")
                    .append(s.id)
                    .append("\"} ")
                    .append(value.apply(s.stats()))
                    .append('\n');
        }
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
        out.append(name).append(' ').append(seconds(nanos)).append('\n');
    }

    /** Nanoseconds as the seconds Prometheus expects, to the microsecond. */
    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.6f", nanos / 1e9);
    }
}
