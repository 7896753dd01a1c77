package org.jacap.kv.eviction;

import org.jacap.JacapException;

/** How many entries a (layer, KV head) of n entries keeps. Protected entries count inside it. */
public sealed interface Budget permits Budget.Ratio, Budget.Kept {

    /** Entries kept out of {@code n}, in 0..n. */
    int keptCount(int n);

    /** The unrounded target PyramidKV starts from: {@code n(1 − r)} or the count. */
    double target(int n);

    static Budget ratio(double compressionRatio) {
        return new Ratio(compressionRatio);
    }

    static Budget kept(int count) {
        return new Kept(count);
    }

    /** Compression ratio r = fraction removed: keeps {@code (int)(n * (1.0 - r))}, truncated in double. */
    record Ratio(double compressionRatio) implements Budget {
        public Ratio {
            if (!(compressionRatio >= 0 && compressionRatio <= 1)) {
                throw new JacapException("compression ratio must be in [0, 1], got " + compressionRatio);
            }
        }

        @Override
        public int keptCount(int n) {
            return Math.min(n, (int) (n * (1.0 - compressionRatio)));
        }

        @Override
        public double target(int n) {
            return n * (1.0 - compressionRatio);
        }
    }

    /** A fixed count (capped at n). */
    record Kept(int count) implements Budget {
        public Kept {
            if (count < 0) {
                throw new JacapException("kept count must be >= 0, got " + count);
            }
        }

        @Override
        public int keptCount(int n) {
            return Math.min(n, count);
        }

        @Override
        public double target(int n) {
            return count;
        }
    }
}
