package org.jacap.model;

import java.nio.file.Path;
import java.util.Arrays;
import org.jacap.simd.Precision;

/**
 * Run in a forked JVM by {@link DeterminismTest}: for each model given, a prompt then greedy steps,
 * repeated {@code rounds} times in this JVM; prints one line per model and round with the ids and a
 * hash of every logit's bits. The test compares the lines across rounds (cold and JIT-compiled) and
 * across JVMs started in interpreter-only, C1-only and default mode.
 */
public final class DeterminismProbe {
    private DeterminismProbe() {}

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        int threads = Integer.parseInt(args[1]);
        for (int a = 2; a < args.length; a++) {
            Path file = Path.of(args[a]);
            try (Model m = Model.load(file, new LoadOptions(threads, Precision.NATIVE, null))) {
                int vocab = m.config().vocabSize();
                for (int r = 0; r < rounds; r++) {
                    InferenceState st = m.newState(64);
                    int[] prompt = {1, 5, 9, 3 % vocab, 17 % vocab, 2};
                    float[] logits = m.forward(st, prompt, 0, prompt.length, true);
                    long hash = Arrays.hashCode(bits(logits));
                    StringBuilder ids = new StringBuilder();
                    float[] last = Arrays.copyOfRange(logits, logits.length - vocab, logits.length);
                    for (int s = 0; s < 6; s++) {
                        int id = argmax(last);
                        ids.append(id).append(',');
                        last = m.forward(st, new int[] {id}, 0, 1, false);
                        hash = 31 * hash + Arrays.hashCode(bits(last));
                    }
                    System.out.println(file.getFileName() + " round " + r + ": ids " + ids + " hash " + hash);
                }
            }
        }
    }

    private static int[] bits(float[] x) {
        int[] b = new int[x.length];
        for (int i = 0; i < x.length; i++) {
            b[i] = Float.floatToRawIntBits(x[i]);
        }
        return b;
    }

    private static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            if (x[i] > x[best]) {
                best = i;
            }
        }
        return best;
    }
}
