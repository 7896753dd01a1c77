package org.jacap.kv.eviction;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import org.jacap.model.InferenceState;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.jacap.tokenizer.Tokenizer;

/**
 * Not a test: greedy generation with budgeted decoding, per policy, in one warm JVM — decode
 * tokens/s (forward only), eviction time, events, KV bytes in use and allocated. Run by hand:
 * {@code java --add-modules jdk.incubator.vector -cp <core classes>:<core test-classes>:<simd>:<gguf-loader>:<commons-math>
 * org.jacap.kv.eviction.EvictionGenerationReport model.gguf [tokens budget threads rounds policies...]}.
 */
public final class EvictionGenerationReport {
    private EvictionGenerationReport() {}

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[0]);
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int budget = args.length > 2 ? Integer.parseInt(args[2]) : 128;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        String[] policies = args.length > 5
                ? java.util.Arrays.copyOfRange(args, 5, args.length)
                : new String[] {"none", "capkv", "jacap"};
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (Model model = Model.load(path, new LoadOptions(threads, Precision.NATIVE, null))) {
            Tokenizer tok = Tokenizer.fromMetadata(model.metadata());
            int[] prompt = tok.encode("Once upon a time", true, false);
            System.out.printf(
                    "%s, %d threads, prompt %d tokens + %d generated, budget %d (last of %d rounds)%n",
                    path.getFileName(), threads, prompt.length, tokens, budget, rounds);
            System.out.println(
                    "| policy | decode tok/s (forward only) | decode tok/s (with eviction) | eviction ms | events"
                            + " | ms/event | peak entries/head | KV bytes in use | KV bytes allocated |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (String name : policies) {
                String line = null;
                for (int round = 0; round < rounds; round++) {
                    line = run(model, prompt, tokens, budget, name, cpu);
                }
                System.out.println(line);
            }
        }
    }

    private static String run(Model model, int[] prompt, int tokens, int budget, String name, ThreadMXBean cpu) {
        if (name.equals("none")) {
            InferenceState st = model.newState(prompt.length + tokens + 1);
            float[] logits = model.forward(st, prompt, 0, prompt.length, false);
            int[] one = new int[1];
            long t0 = System.nanoTime();
            for (int i = 0; i < tokens; i++) {
                one[0] = StoriesModel.argmax(logits);
                logits = model.forward(st, one, 0, 1, false);
            }
            long t = System.nanoTime() - t0;
            return String.format(
                    "| none | %.0f | %.0f | 0 | 0 | - | %d | %d | %d |",
                    tokens * 1e9 / t,
                    tokens * 1e9 / t,
                    st.kvCache().maxLength(),
                    st.kvCache().bytesInUse(),
                    st.kvCache().bytesAllocated());
        }
        EvictionSettings settings = EvictionSettings.budget(EvictionPolicies.policy(name, "uniform"), budget);
        EvictionSchedule s = new EvictionSchedule(
                model, EvictionSchedule.newState(model, settings, 1 << 20), settings, Integer.MAX_VALUE);
        float[] logits = s.prompt(prompt, 0, prompt.length);
        long e0 = s.scoringNanos();
        long t0 = System.nanoTime();
        for (int i = 0; i < tokens; i++) {
            logits = s.decode(StoriesModel.argmax(logits));
        }
        long t = System.nanoTime() - t0;
        long evict = s.scoringNanos() - e0;
        return String.format(
                "| %s | %.0f | %.0f | %.1f | %d | %.3f | %d | %d | %d |",
                name,
                tokens * 1e9 / (t - evict),
                tokens * 1e9 / t,
                evict / 1e6,
                s.decodeEvents(),
                evict / 1e6 / Math.max(1, s.decodeEvents()),
                s.peakHeadLength(),
                s.state().kvCache().bytesInUse(),
                s.state().kvCache().bytesAllocated());
    }
}
