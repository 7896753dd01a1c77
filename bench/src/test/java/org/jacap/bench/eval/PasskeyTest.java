package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

/** The passkey trial's layout, with one token per character so every position can be checked. */
class PasskeyTest {
    private static final int BOS = 1;
    private final Passkey passkey = new Passkey(s -> s.chars().toArray(), BOS);

    private static String text(int[] ids, int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.appendCodePoint(ids[i]);
        }
        return sb.toString();
    }

    @Test
    void contextHasExactlyTheLengthAndTheKeyAtItsDepth() {
        int context = 2000;
        for (double depth : new double[] {0.0, 0.1, 0.5, 0.9, 1.0}) {
            Passkey.Trial t = passkey.trial(context, depth, 42, 3);
            int[] ids = t.tokens();
            assertThat(ids[0]).isEqualTo(BOS);
            assertThat(t.context()).isEqualTo(context);
            String ctx = text(ids, 1, context);
            assertThat(ctx).startsWith(Passkey.INSTRUCTION);
            String info = " The pass key is " + t.key() + ".";
            int at = ctx.indexOf(info);
            assertThat(at).isPositive();
            assertThat(ctx.indexOf(info, at + 1)).isEqualTo(-1);
            // the key sits at the depth of the filler, to within one filler sentence group
            int fillerTokens = context
                    - 1
                    - Passkey.INSTRUCTION.length()
                    - (info + " Remember it. " + t.key() + " is the pass key.").length();
            double actual = (double) (at - Passkey.INSTRUCTION.length()) / fillerTokens;
            assertThat(actual).isBetween(depth - (double) Passkey.FILLER.length() / fillerTokens, depth);
            assertThat((at - Passkey.INSTRUCTION.length()) % Passkey.FILLER.length())
                    .isZero();
            // after the context: the question, then the key, and the answer starts where answerFrom says
            String tail = text(ids, context, ids.length);
            assertThat(tail).isEqualTo(Passkey.QUESTION + " " + t.key());
            assertThat(ids[context + t.answerFrom() + 1]).isEqualTo(' ');
            assertThat(text(ids, context + t.answerFrom() + 1, ids.length)).isEqualTo(" " + t.key());
        }
    }

    @Test
    void keysAreFiveDigitsSeededPerTrial() {
        Passkey.Trial a = passkey.trial(1000, 0.5, 42, 0);
        assertThat(a.key()).hasSize(5).containsOnlyDigits();
        assertThat(passkey.trial(1000, 0.5, 42, 0).tokens()).isEqualTo(a.tokens());
        assertThat(passkey.trial(1000, 0.5, 42, 1).key()).isNotEqualTo(a.key());
        assertThat(Arrays.stream(new int[] {0, 1, 2, 3, 4, 5, 6, 7})
                        .mapToObj(i -> passkey.trial(1000, 0.5, 7, i).key())
                        .distinct()
                        .count())
                .isGreaterThan(6);
    }

    @Test
    void badTrialsAreRefused() {
        assertThatThrownBy(() -> passkey.trial(200, 0.5, 1, 0))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("passkey context of 200 tokens is too short");
        assertThatThrownBy(() -> passkey.trial(2000, 1.5, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
