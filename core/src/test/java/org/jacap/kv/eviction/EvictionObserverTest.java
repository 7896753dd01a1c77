package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.jacap.kv.ForwardObserver;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.simd.Rope;
import org.jacap.simd.RopeLayout;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The statistics the forward pass gathers equal those computed directly from the recorded queries
 * and attention rows: moments of pre-RoPE queries at positions ≥ n_sink, the post-RoPE window,
 * attention received, and the decoding window's moments.
 */
class EvictionObserverTest {
    private static final int LAYERS = 5;
    private static final int HQ = 8;
    private static final int D = 8;

    @AutoClose
    private static Model model;

    @BeforeAll
    static void load() {
        model = StoriesModel.load(StoriesModel.STORIES);
    }

    /** Records every callback and passes it on. */
    private static final class Recorder implements ForwardObserver {
        final EvictionObserver delegate;
        final List<List<float[]>> pre = new ArrayList<>();
        final List<List<float[]>> post = new ArrayList<>();
        final List<List<Integer>> positions = new ArrayList<>();
        /** [layer][query head] → summed attention per entry index, and how many rows covered it. */
        final double[][][] received = new double[LAYERS][HQ][4096];

        final int[][][] seen = new int[LAYERS][HQ][4096];

        Recorder(EvictionObserver delegate) {
            this.delegate = delegate;
            for (int l = 0; l < LAYERS; l++) {
                pre.add(new ArrayList<>());
                post.add(new ArrayList<>());
                positions.add(new ArrayList<>());
            }
        }

        @Override
        public void onQuery(int layer, int position, float[] qPre, int preOff, float[] qPost, int postOff) {
            pre.get(layer).add(java.util.Arrays.copyOfRange(qPre, preOff, preOff + HQ * D));
            post.get(layer).add(java.util.Arrays.copyOfRange(qPost, postOff, postOff + HQ * D));
            positions.get(layer).add(position);
            delegate.onQuery(layer, position, qPre, preOff, qPost, postOff);
        }

        @Override
        public boolean wantsAttention() {
            return delegate.wantsAttention();
        }

        @Override
        public void onAttention(int layer, int queryHead, int position, float[] probs, int off, int len) {
            for (int i = 0; i < len; i++) {
                received[layer][queryHead][i] += probs[off + i];
                seen[layer][queryHead][i]++;
            }
            delegate.onAttention(layer, queryHead, position, probs, off, len);
        }
    }

    private static StatisticsSpec everything() {
        return EvictionPolicies.policy("jacap-paper", "uniform")
                .statistics()
                .union(EvictionPolicies.policy("expected:covariance=true", "uniform")
                        .statistics())
                .union(EvictionPolicies.policy("snapkv:window=16", "uniform").statistics())
                .union(EvictionPolicies.policy("h2o", "uniform").statistics());
    }

    @Test
    void gatheredStatisticsEqualDirectComputation() {
        int window = 16;
        EvictionObserver observer = new EvictionObserver(KvCompressor.shapes(model), everything(), window);
        Recorder rec = new Recorder(observer);
        InferenceState st = model.newState(256);
        st.setObserver(rec);
        int[] prompt = StoriesModel.tokenizer(model)
                .encode(
                        "Once upon a time, there was a little dog. The dog liked to run in the park with his friend.",
                        true,
                        false);
        float[] logits = model.forward(st, prompt, 0, prompt.length, false);
        int n = prompt.length;
        Rope rope = new Rope(D, D, 10000, null, RopeLayout.NORMAL);
        for (int l = 0; l < LAYERS; l++) {
            QueryStatistics s = observer.statistics(l);
            assertThat(rec.positions.get(l)).hasSize(n);
            for (int h = 0; h < HQ; h++) {
                // moments over positions 4.. (the sinks are excluded)
                double[] mean = new double[D];
                double[] var = new double[D];
                double[] cov = new double[D * D];
                int count = 0;
                for (int t = 0; t < n; t++) {
                    if (rec.positions.get(l).get(t) < 4) {
                        continue;
                    }
                    count++;
                    for (int a = 0; a < D; a++) {
                        mean[a] += rec.pre.get(l).get(t)[h * D + a];
                    }
                }
                for (int a = 0; a < D; a++) {
                    mean[a] /= count;
                }
                for (int t = 0; t < n; t++) {
                    if (rec.positions.get(l).get(t) < 4) {
                        continue;
                    }
                    float[] q = rec.pre.get(l).get(t);
                    for (int a = 0; a < D; a++) {
                        var[a] += (q[h * D + a] - mean[a]) * (q[h * D + a] - mean[a]) / count;
                        for (int b = 0; b < D; b++) {
                            cov[a * D + b] += (q[h * D + a] - mean[a]) * (q[h * D + b] - mean[b]) / count;
                        }
                    }
                }
                assertThat(s.momentCount(h)).isEqualTo(count);
                double[] got = new double[D * D];
                s.meanInto(h, got);
                for (int a = 0; a < D; a++) {
                    assertThat(got[a]).isCloseTo(mean[a], within(1e-9));
                }
                s.varianceInto(h, got);
                for (int a = 0; a < D; a++) {
                    assertThat(got[a]).isCloseTo(var[a], within(1e-9));
                }
                s.covarianceInto(h, got);
                for (int a = 0; a < D * D; a++) {
                    assertThat(got[a]).isCloseTo(cov[a], within(1e-9));
                }

                // the post-RoPE window: the last 16 queries as attention used them, at their positions
                assertThat(s.recentCount(h)).isEqualTo(16);
                double[] q = new double[D];
                for (int k = 0; k < 16; k++) {
                    int t = n - 16 + k;
                    assertThat(s.recentPosition(h, k)).isEqualTo(t);
                    s.recentQueryInto(h, k, q);
                    for (int a = 0; a < D; a++) {
                        assertThat(q[a]).isEqualTo(rec.post.get(l).get(t)[h * D + a]);
                    }
                }

                // attention received and how many query rows covered each entry (causal: n − i)
                for (int i = 0; i < n; i++) {
                    assertThat(s.attentionSeenBy(h, i)).isEqualTo(n - i);
                    assertThat(s.attentionReceived(h, i)).isCloseTo(rec.received[l][h][i], within(1e-9));
                }
            }
            // pre-RoPE queries are reported at their true positions: rotating them gives the post-RoPE ones
            for (int t = 0; t < n; t++) {
                float[] rotated = rec.pre.get(l).get(t).clone();
                rope.apply(rotated, 0, HQ, rec.positions.get(l).get(t));
                float[] post = rec.post.get(l).get(t);
                for (int a = 0; a < HQ * D; a++) {
                    assertThat(rotated[a]).isCloseTo(post[a], within(1e-5f));
                }
            }
        }
        // the sum of every attention row is 1: total received = rows
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += observer.statistics(2).attentionReceived(5, i);
        }
        assertThat(total).isCloseTo(n, within(1e-4));

        // decoding: moments over the last `window` queries only, replayed from the ring
        observer.gatherMomentsIncrementally(false);
        int[] next = new int[1];
        for (int i = 0; i < 30; i++) {
            next[0] = StoriesModel.argmax(logits);
            logits = model.forward(st, next, 0, 1, false);
        }
        for (int l = 0; l < LAYERS; l++) {
            observer.useRecentQueriesForMoments(l);
            assertThat(observer.recentQueriesHeld(l)).isEqualTo(window);
            List<float[]> all = rec.pre.get(l);
            for (int h = 0; h < HQ; h++) {
                double[] mean = new double[D];
                for (int t = all.size() - window; t < all.size(); t++) {
                    for (int a = 0; a < D; a++) {
                        mean[a] += all.get(t)[h * D + a] / (double) window;
                    }
                }
                double[] got = new double[D];
                observer.statistics(l).meanInto(h, got);
                assertThat(observer.statistics(l).momentCount(h)).isEqualTo(window);
                for (int a = 0; a < D; a++) {
                    assertThat(got[a]).isCloseTo(mean[a], within(1e-9));
                }
            }
        }
    }

    @Test
    void onlyWhatThePolicyNeedsIsGathered() {
        EvictionObserver capkv = new EvictionObserver(
                KvCompressor.shapes(model),
                EvictionPolicies.policy("capkv", "uniform").statistics(),
                256);
        assertThat(capkv.wantsAttention()).isFalse();
        assertThat(capkv.statistics(0).gathers(QueryStatistic.RECENT_QUERIES)).isFalse();
        assertThat(capkv.statistics(0).gathers(QueryStatistic.PRE_ROPE_VARIANCE))
                .isFalse();
        EvictionObserver h2o = new EvictionObserver(
                KvCompressor.shapes(model),
                EvictionPolicies.policy("h2o", "uniform").statistics(),
                256);
        assertThat(h2o.wantsAttention()).isTrue();
        assertThat(h2o.momentWindow()).as("no moments, no query ring").isZero();
        // a schedule installs no observer at all for a policy that needs no statistics
        EvictionSettings knorm = EvictionSettings.budget(EvictionPolicies.policy("knorm", "uniform"), 16);
        EvictionSchedule s = new EvictionSchedule(model, EvictionSchedule.newState(model, knorm, 64), knorm, 1000);
        assertThat(s.observer()).isNull();
        assertThat(s.state().observer()).isNull();
    }

    @Test
    void copiesAreIndependent() {
        EvictionObserver observer = new EvictionObserver(
                KvCompressor.shapes(model),
                EvictionPolicies.policy("h2o", "uniform").statistics(),
                0);
        InferenceState st = model.newState(64);
        st.setObserver(observer);
        model.forward(st, new int[] {1, 403, 407, 261, 378, 432, 383}, 0, 7, false);
        EvictionObserver copy = observer.copy();
        double before = copy.statistics(1).attentionReceived(3, 2);
        observer.statistics(1).retainEntries(1, new int[] {0, 1});
        assertThat(copy.statistics(1).attentionReceived(3, 2)).isEqualTo(before);
        assertThat(observer.statistics(1).attentionReceived(3, 2)).isZero();
    }
}
