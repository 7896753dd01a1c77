package org.jacap.simd;

/** Tuning aid: does a 2-thread pool run two CPU-bound chunks in parallel here? */
final class ScalingCheck {
    static double spin(long n) {
        double x = 1;
        for (long i = 0; i < n; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        return x;
    }

    public static void main(String[] args) {
        long n = 200_000_000L;
        for (int threads = 1; threads <= 2; threads++) {
            try (ThreadPool pool = new ThreadPool(threads)) {
                double[] sink = new double[2];
                for (int rep = 0; rep < 4; rep++) {
                    long t0 = System.nanoTime();
                    pool.parallelFor(2, (s, e, w) -> {
                        for (int i = s; i < e; i++) {
                            sink[w] += spin(n);
                        }
                    });
                    System.out.printf(
                            "threads=%d: two chunks of work in %.0f ms%n", threads, (System.nanoTime() - t0) * 1e-6);
                }
            }
        }
    }
}
