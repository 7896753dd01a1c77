package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.jacap.JacapException;

/**
 * The passkey task in the style of llama.cpp's {@code passkey} example: a fixed instruction, a
 * filler that says nothing ("The grass is green. The sky is blue. …") repeated to fill the
 * context, and one sentence planting a random 5-digit key at a depth. After compression the
 * question and the answer are teacher-forced: the trial is an exact match when every answer token
 * is the model's top-1 prediction (the same as greedy decoding producing the key).
 */
public final class Passkey {
    static final String INSTRUCTION = "There is an important info hidden inside a lot of irrelevant text. Find it and"
            + " memorize it. I will quiz you about the important information there.";
    static final String FILLER =
            " The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
    static final String QUESTION = " What is the pass key? The pass key is";

    /**
     * One trial: {@code tokens[0..context)} is the compressed context, the rest the question and the
     * answer; {@code answerFrom} is the index in the teacher-forced part (after the context) of the
     * input whose target is the first answer token.
     */
    public record Trial(int[] tokens, int context, int answerFrom, String key, double depth) {}

    private final int[] instruction;
    private final int[] filler;
    private final int[] question;
    private final Function<String, int[]> encode;
    private final int bos;

    /**
     * @param encode text to ids without BOS
     * @param bos    the BOS id, or −1 when the model has none
     */
    public Passkey(Function<String, int[]> encode, int bos) {
        this.encode = encode;
        this.bos = bos;
        this.instruction = encode.apply(INSTRUCTION);
        this.filler = encode.apply(FILLER);
        this.question = encode.apply(QUESTION);
    }

    /** The trial for one (seed, index) at {@code depth} ∈ [0, 1] of a context of {@code context} tokens. */
    public Trial trial(int context, double depth, long seed, int index) {
        if (!(depth >= 0 && depth <= 1)) {
            throw new IllegalArgumentException("passkey depths must be in [0, 1], got " + depth);
        }
        String key = Integer.toString(10_000 + new SplittableRandom(seed * 7_919L + index).nextInt(90_000));
        int[] info = encode.apply(" The pass key is " + key + ". Remember it. " + key + " is the pass key.");
        int[] answer = encode.apply(" " + key);
        int head = (bos >= 0 ? 1 : 0) + instruction.length;
        int room = context - head - info.length;
        if (room < filler.length) {
            throw new JacapException("a passkey context of " + context + " tokens is too short (needs at least "
                    + (head + info.length + filler.length) + ")");
        }
        List<Integer> ids = new ArrayList<>(context + question.length + answer.length);
        if (bos >= 0) {
            ids.add(bos);
        }
        add(ids, instruction);
        int fillerTokens = room; // filled with whole fillers and one cut filler at the end
        int before = (int) Math.round(depth * fillerTokens);
        before -= before % filler.length; // the key starts at a sentence boundary
        fill(ids, before);
        add(ids, info);
        fill(ids, fillerTokens - before);
        if (ids.size() != context) {
            throw new IllegalStateException("passkey context of " + ids.size() + " tokens, expected " + context);
        }
        add(ids, question);
        add(ids, answer);
        int[] tokens = ids.stream().mapToInt(Integer::intValue).toArray();
        // input at context + question.length − 1 (the last question token) predicts the first answer token
        return new Trial(tokens, context, question.length - 1, key, depth);
    }

    private void fill(List<Integer> ids, int count) {
        for (int i = 0; i < count; i++) {
            ids.add(filler[i % filler.length]);
        }
    }

    private static void add(List<Integer> ids, int[] tokens) {
        for (int t : tokens) {
            ids.add(t);
        }
    }
}
