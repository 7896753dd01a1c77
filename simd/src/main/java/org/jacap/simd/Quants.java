package org.jacap.simd;

/** Rounding helpers with ggml's exact semantics. */
final class Quants {
    private Quants() {}

    /** ggml's {@code nearest_int}: round half to even (valid for |x| <= 4194303, as there). */
    static int nearestInt(float x) {
        return (int) Math.rint(x);
    }

    /** C's {@code roundf}: half away from zero. */
    static int roundAway(float x) {
        double a = Math.floor(Math.abs((double) x) + 0.5);
        return (int) (x < 0 ? -a : a);
    }
}
