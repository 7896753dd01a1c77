package org.jacap.bench.synthetic;

/**
 * SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, well-mixed 64-bit generator. One instance
 * per chunk of rows, seeded from (seed, tensor, chunk), keeps the weights independent of the
 * thread count.
 */
public final class SplitMix64 {
    private static final double IRWIN_HALL_SCALE = Math.sqrt(3.0) / 65536.0;
    private long state;

    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** Derives a well-spread seed from several integers (each one mixed in turn). */
    public static long seed(long... parts) {
        long s = 0x5DEECE66DL;
        for (long p : parts) {
            s = mix(s ^ mix(p + 0x9E3779B97F4A7C15L));
        }
        return s;
    }

    public long nextLong() {
        return mix(state += 0x9E3779B97F4A7C15L);
    }

    /**
     * An approximately standard-normal value: the sum of four 16-bit uniforms (Irwin–Hall, n = 4),
     * centred and scaled to unit variance. Bounded by ±3.46; good enough for random weights, and
     * one 64-bit draw per value.
     */
    public float nextGaussian() {
        long r = nextLong();
        long sum = (r & 0xFFFF) + ((r >>> 16) & 0xFFFF) + ((r >>> 32) & 0xFFFF) + (r >>> 48);
        return (float) ((sum - 131070.0) * IRWIN_HALL_SCALE); // mean of the sum: 4 × 32767.5
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
