package org.jacap.model;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jacap.gguf.GgmlType;
import org.jacap.simd.Precision;

/**
 * Rough prefill/decode speed of the forward pass (not a test; the real harness is
 * {@code jacap bench}). Usage: {@code ThroughputCheck MODEL.gguf|random:TYPE[:LAYERS] THREADS [PP] [TG]};
 * {@code random:Q4_0:22} writes a TinyLlama-1.1B-shaped model with random weights to the temp dir.
 */
public final class ThroughputCheck {
    private ThroughputCheck() {}

    private static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            if (x[i] > x[best]) {
                best = i;
            }
        }
        return best;
    }

    public static void main(String[] args) throws Exception {
        Path path;
        if (args[0].startsWith("random:")) {
            String[] spec = args[0].split(":");
            GgmlType type = GgmlType.valueOf(spec[1]);
            int layers = spec.length > 2 ? Integer.parseInt(spec[2]) : 22;
            path = Path.of(System.getProperty("java.io.tmpdir"), "jacap-random-" + type + "-" + layers + ".gguf");
            if (!Files.exists(path)) {
                long t0 = System.nanoTime();
                TinyGguf.llama(2048, layers, 32, 4, 5632, 32000, 42, type)
                        .put("llama.context_length", 2048)
                        .write(path);
                System.out.printf(
                        "wrote %s (%.0f MB) in %.1f s%n", path, Files.size(path) / 1e6, (System.nanoTime() - t0) / 1e9);
            }
        } else {
            path = Path.of(args[0]);
        }
        int threads = Integer.parseInt(args[1]);
        int pp = args.length > 2 ? Integer.parseInt(args[2]) : 128;
        int tg = args.length > 3 ? Integer.parseInt(args[3]) : 32;
        Precision precision = Precision.valueOf(System.getProperty("precision", "NATIVE"));
        try (Model m = Model.load(path, new LoadOptions(threads, precision, null))) {
            ModelConfig c = m.config();
            System.out.printf(
                    "%s: %s, n_embd %d, %d blocks, heads %d/%d, ff %d, vocab %d; %d threads, %s%n",
                    path.getFileName(),
                    c.architecture(),
                    c.embeddingLength(),
                    c.blockCount(),
                    c.headCount(),
                    c.headCountKv(),
                    c.feedForwardLength(),
                    c.vocabSize(),
                    threads,
                    precision);
            int[] prompt = new int[pp];
            for (int i = 0; i < pp; i++) {
                prompt[i] = 1 + (i * 37) % (c.vocabSize() - 1);
            }
            for (int rep = 0, reps = Integer.getInteger("reps", 3);
                    rep < reps;
                    rep++) { // the first repetitions warm up the JIT
                InferenceState st = m.newState(pp + tg + 1);
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                long c0 = mx.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                float[] logits = m.forward(st, prompt, 0, pp, false);
                long t1 = System.nanoTime();
                long c1 = mx.getCurrentThreadCpuTime();
                int[] next = new int[1];
                for (int i = 0; i < tg; i++) {
                    next[0] = argmax(logits);
                    logits = m.forward(st, next, 0, 1, false);
                }
                long t2 = System.nanoTime();
                long c2 = mx.getCurrentThreadCpuTime();
                // Caller-thread CPU time: with one thread it shows the speed on an idle core.
                System.out.printf(
                        "rep %d: pp%d %.1f tok/s, tg%d %.1f tok/s (wall); caller CPU: pp %.1f tok/s, tg %.1f tok/s%n",
                        rep,
                        pp,
                        pp / ((t1 - t0) / 1e9),
                        tg,
                        tg / ((t2 - t1) / 1e9),
                        pp / ((c1 - c0) / 1e9),
                        tg / ((c2 - c1) / 1e9));
            }
        }
    }
}
