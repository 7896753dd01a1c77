package org.jacap.engine;

import java.util.ArrayList;
import java.util.List;
import org.jacap.tokenizer.Tokenizer;

/**
 * The log-softmax normaliser and the n largest logits of one step, for {@link TokenLogprobs}.
 * Sums run in one fixed order in double with {@link StrictMath#exp}, so the figures are the same
 * bits whichever JIT tier runs them.
 */
final class TopLogits {
    private final double max;
    private final double logSum;
    private final int[] ids;
    private final float[] values;

    private TopLogits(double max, double logSum, int[] ids, float[] values) {
        this.max = max;
        this.logSum = logSum;
        this.ids = ids;
        this.values = values;
    }

    /** Reads {@code logits[0, vocab)}; keeps the {@code n} largest (ties: the lower id first). */
    static TopLogits of(float[] logits, int vocab, int n) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < vocab; i++) {
            max = Math.max(max, logits[i]);
        }
        double sum = 0;
        for (int i = 0; i < vocab; i++) {
            sum += StrictMath.exp((double) logits[i] - max);
        }
        int k = Math.min(n, vocab);
        int[] ids = new int[k];
        float[] values = new float[k];
        int size = 0;
        for (int i = 0; i < vocab; i++) {
            float v = logits[i];
            if (size == k && !(v > values[k - 1])) {
                continue; // not above the smallest kept: an equal later id ranks after it
            }
            int at = size == k ? k - 1 : size++;
            while (at > 0 && v > values[at - 1]) {
                values[at] = values[at - 1];
                ids[at] = ids[at - 1];
                at--;
            }
            values[at] = v;
            ids[at] = i;
        }
        return new TopLogits(max, StrictMath.log(sum), ids, values);
    }

    float logprob(float logit) {
        return (float) (logit - max - logSum);
    }

    TokenLogprobs forChosen(float chosenLogit, Tokenizer tokenizer) {
        List<TokenLogprobs.Alternative> top = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            top.add(new TokenLogprobs.Alternative(ids[i], tokenizer.piece(ids[i]), logprob(values[i])));
        }
        return new TokenLogprobs(logprob(chosenLogit), top);
    }
}
