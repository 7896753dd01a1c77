package org.jacap.kv.eviction;

import java.util.EnumSet;
import java.util.SplittableRandom;
import org.jacap.simd.RopeLayout;

/** Random layers for property tests and timing: keys/values/queries with a shared query mean. */
final class SyntheticLayer {
    final AttentionShape shape;
    final int n;
    final double[][][] keys; // [Hkv][n][d], post-RoPE
    final double[][][] values;
    final double[][][] qPre; // [Hq][n][d]
    final double[][][] q;

    SyntheticLayer(long seed, int hq, int hkv, int n, int d) {
        shape = new AttentionShape(hq, hkv, d);
        this.n = n;
        SplittableRandom r = new SplittableRandom(seed);
        keys = new double[hkv][n][d];
        values = new double[hkv][n][d];
        qPre = new double[hq][n][d];
        q = new double[hq][n][d];
        double[] queryMean = new double[d];
        for (int a = 0; a < d; a++) {
            queryMean[a] = r.nextGaussian();
        }
        for (int g = 0; g < hkv; g++) {
            for (int i = 0; i < n; i++) {
                for (int a = 0; a < d; a++) {
                    keys[g][i][a] = r.nextGaussian() + 0.3 * queryMean[a];
                    values[g][i][a] = r.nextGaussian() * (0.5 + (i % 7) / 7.0);
                }
            }
        }
        for (int h = 0; h < hq; h++) {
            for (int t = 0; t < n; t++) {
                for (int a = 0; a < d; a++) {
                    qPre[h][t][a] = queryMean[a] + 0.5 * r.nextGaussian();
                    q[h][t][a] = qPre[h][t][a] * (a % 2 == 0 ? 1 : -1);
                }
            }
        }
    }

    /** Copies token {@code from}'s key and value (every KV head) over token {@code to}. */
    SyntheticLayer duplicate(int from, int to) {
        for (int g = 0; g < shape.kvHeads(); g++) {
            keys[g][to] = keys[g][from].clone();
            values[g][to] = values[g][from].clone();
        }
        return this;
    }

    SyntheticLayer zeroValue(int i) {
        for (int g = 0; g < shape.kvHeads(); g++) {
            values[g][i] = new double[shape.headDim()];
        }
        return this;
    }

    static StatisticsSpec everything(int nSink, int window) {
        return new StatisticsSpec(EnumSet.allOf(QueryStatistic.class), nSink, window);
    }

    LayerSnapshot snapshot(StatisticsSpec spec) {
        return snapshot(spec, 0, 1);
    }

    LayerSnapshot snapshot(StatisticsSpec spec, int layer, int layerCount) {
        int d = shape.headDim();
        KvHeadRows[] heads = new KvHeadRows[shape.kvHeads()];
        for (int g = 0; g < heads.length; g++) {
            heads[g] = KvHeadRows.ofRows(keys[g], values[g]);
        }
        QueryStatistics stats = new QueryStatistics(shape, spec);
        double[] row = new double[n];
        for (int h = 0; h < shape.queryHeads(); h++) {
            double[][] k = keys[shape.kvHeadOf(h)];
            for (int t = 0; t < n; t++) {
                stats.observePreRope(h, t, qPre[h][t], 0);
                stats.observePostRope(h, t, q[h][t], 0);
                if (spec.needs(QueryStatistic.ATTENTION_RECEIVED)) {
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j <= t; j++) {
                        double s = 0;
                        for (int a = 0; a < d; a++) {
                            s += q[h][t][a] * k[j][a];
                        }
                        row[j] = s / Math.sqrt(d);
                        max = Math.max(max, row[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j <= t; j++) {
                        sum += row[j] = Math.exp(row[j] - max);
                    }
                    for (int j = 0; j <= t; j++) {
                        row[j] /= sum;
                    }
                    stats.observeAttention(h, row, 0, t + 1);
                }
            }
        }
        double[] invFreq = new double[d / 2];
        for (int j = 0; j < d / 2; j++) {
            invFreq[j] = Math.pow(10000.0, -2.0 * j / d);
        }
        AveragedRotation rotation = AveragedRotation.overPositions(RopeLayout.NEOX, invFreq, n, 512);
        return new LayerSnapshot(layer, layerCount, shape, heads, rotation, stats);
    }
}
