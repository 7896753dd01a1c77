package org.jacap.bench.reliability;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The mutations of the model fuzz campaign: bit flips and overwrites aimed mostly at the header,
 * extreme values written into its numeric fields (hyperparameters, counts, dimensions, offsets),
 * NaN/Inf/garbage written into tensor data, truncations, and (in-memory samples) duplicated or
 * removed byte ranges. Every choice comes from the case's own random source, so a case seed
 * reproduces its mutation exactly.
 */
final class GgufMutator {
    private GgufMutator() {}

    private static final long[] INT_EXTREMES = {
        0,
        1,
        -1,
        2,
        3,
        4,
        5,
        7,
        8,
        13,
        0x7F,
        0x80,
        0xFF,
        0xFFFF,
        1L << 16,
        100_000_000,
        1L << 30,
        Integer.MAX_VALUE,
        1L << 31,
        0xFFFF_FFFFL,
        1L << 32,
        1L << 62,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        -2
    };
    private static final double[] FLOAT_EXTREMES = {
        Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0, -0.0, -1, 1e-30, 1e30, 1e-45, 3.4e38, 65504
    };
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Mutates an in-memory sample; the result may be longer or shorter. */
    static byte[] mutate(FuzzSample s, SplittableRandom r, List<String> log) {
        byte[] b = s.bytes().clone();
        int ops = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1;
        for (int k = 0; k < ops && b.length > 0; k++) {
            int op = r.nextInt(9);
            if (op == 7 || op == 8) {
                b = structural(b, s, r, log, op == 7);
            } else if (op == 5) {
                int at = (int) (r.nextInt(10) < 7 ? pick(b.length, s, r) : r.nextInt(b.length));
                b = Arrays.copyOf(b, at);
                log.add("truncate to " + at);
            } else {
                inPlace(MemorySegment.ofArray(b), s, r, log, op);
            }
        }
        return b;
    }

    /**
     * Mutates {@code seg} (a copy-on-write mapping of a large sample) in place and returns the
     * image to parse: the same segment or, for a truncation, a prefix of it.
     */
    static MemorySegment mutateInPlace(MemorySegment seg, FuzzSample s, SplittableRandom r, List<String> log) {
        MemorySegment image = seg;
        int ops = r.nextInt(4) == 0 ? 2 : 1;
        for (int k = 0; k < ops; k++) {
            int op = r.nextInt(7);
            if (op == 5) {
                long at = r.nextInt(10) < 7 ? pick(image.byteSize(), s, r) : r.nextLong(image.byteSize());
                image = image.asSlice(0, at);
                log.add("truncate to " + at);
            } else {
                inPlace(image, s, r, log, op);
            }
        }
        return image;
    }

    private static void inPlace(MemorySegment b, FuzzSample s, SplittableRandom r, List<String> log, int op) {
        long len = b.byteSize();
        if (len == 0) {
            return;
        }
        switch (op) {
            case 0 -> {
                int n = 1 + r.nextInt(8);
                for (int j = 0; j < n; j++) {
                    long at = pick(len, s, r);
                    int bit = r.nextInt(8);
                    b.set(ValueLayout.JAVA_BYTE, at, (byte) (b.get(ValueLayout.JAVA_BYTE, at) ^ (1 << bit)));
                    log.add("flip bit " + bit + " @" + at);
                }
            }
            case 1 -> {
                long at = pick(len, s, r);
                int n = (int) Math.min(1 + r.nextInt(8), len - at);
                int v = r.nextInt(3) == 0 ? 0 : r.nextBoolean() ? 0xFF : -1;
                for (int j = 0; j < n; j++) {
                    b.set(ValueLayout.JAVA_BYTE, at + j, (byte) (v == -1 ? r.nextInt(256) : v));
                }
                log.add("overwrite " + n + " bytes @" + at);
            }
            case 2, 3 -> field(b, s, r, log);
            default -> data(b, s, r, log);
        }
    }

    /** An extreme or nudged value in one header field (a hyperparameter, a count, a dimension …). */
    private static void field(MemorySegment b, FuzzSample s, SplittableRandom r, List<String> log) {
        if (s.fields().isEmpty()) {
            return;
        }
        HeaderFields.Field f = s.fields().get(r.nextInt(s.fields().size()));
        if (f.offset() + f.width() > b.byteSize()) {
            return;
        }
        if (f.floating()) {
            double v = FLOAT_EXTREMES[r.nextInt(FLOAT_EXTREMES.length)];
            if (f.width() == 4) {
                writeLe(b, f.offset(), 4, Float.floatToRawIntBits((float) v));
            } else {
                writeLe(b, f.offset(), 8, Double.doubleToRawLongBits(v));
            }
            log.add(f.label() + " = " + v);
            return;
        }
        long old = readLe(b, f.offset(), f.width());
        long v = switch (r.nextInt(5)) {
            case 0 -> old + 1;
            case 1 -> old - 1;
            case 2 -> old * 2 + r.nextInt(3);
            case 3 -> old + r.nextInt(-64, 65);
            default -> INT_EXTREMES[r.nextInt(INT_EXTREMES.length)];
        };
        writeLe(b, f.offset(), f.width(), v);
        log.add(f.label() + " = " + Long.toUnsignedString(v) + " (was " + old + ")");
    }

    /** NaN, infinity, a huge value or garbage inside one tensor's data (f32, f16 or raw bytes). */
    private static void data(MemorySegment b, FuzzSample s, SplittableRandom r, List<String> log) {
        if (s.tensors().isEmpty()) {
            return;
        }
        FuzzSample.TensorRange t = s.tensors().get(r.nextInt(s.tensors().size()));
        if (t.start() + t.length() > b.byteSize() || t.length() < 4) {
            return;
        }
        long at = t.start() + (r.nextLong(t.length() - 3) & ~1L);
        switch (r.nextInt(4)) {
            case 0 -> {
                at &= ~3L;
                int bits = r.nextBoolean() ? 0x7FC00000 : r.nextBoolean() ? 0x7F800000 : 0x7F7FFFFF;
                writeLe(b, Math.max(at, t.start()), 4, bits);
                log.add(t.type() + " data @" + at + " = f32 " + Float.intBitsToFloat(bits));
            }
            case 1 -> {
                int bits = r.nextBoolean() ? 0x7E00 : r.nextBoolean() ? 0x7C00 : 0x7BFF;
                writeLe(b, at, 2, bits);
                log.add(t.type() + " data @" + at + " = f16 bits 0x" + Integer.toHexString(bits));
            }
            case 2 -> {
                for (int j = 0; j < 4; j++) {
                    b.set(ValueLayout.JAVA_BYTE, at + j, (byte) 0xFF);
                }
                log.add(t.type() + " data @" + at + " = ff ff ff ff");
            }
            default -> {
                long n = Math.min(t.start() + t.length() - at, 1 + r.nextInt(4096));
                for (long j = 0; j < n; j++) {
                    b.set(ValueLayout.JAVA_BYTE, at + j, (byte) r.nextInt(256));
                }
                log.add(t.type() + " data @" + at + " = " + n + " random bytes");
            }
        }
    }

    private static byte[] structural(byte[] b, FuzzSample s, SplittableRandom r, List<String> log, boolean duplicate) {
        int from = (int) pick(b.length, s, r);
        int len = Math.min(1 + r.nextInt(r.nextBoolean() ? 16 : 2048), b.length - from);
        if (duplicate) {
            int to = (int) pick(b.length, s, r);
            byte[] out = new byte[b.length + len];
            System.arraycopy(b, 0, out, 0, to);
            System.arraycopy(b, from, out, to, len);
            System.arraycopy(b, to, out, to + len, b.length - to);
            log.add("duplicate " + len + " bytes from @" + from + " to @" + to);
            return out;
        }
        byte[] out = new byte[b.length - len];
        System.arraycopy(b, 0, out, 0, from);
        System.arraycopy(b, from + len, out, from, b.length - from - len);
        log.add("remove " + len + " bytes @" + from);
        return out;
    }

    /** A position, mostly inside the header where mutations matter most. */
    private static long pick(long length, FuzzSample s, SplittableRandom r) {
        long header = Math.min(s.headerEnd(), length);
        return header > 0 && r.nextInt(100) < 85 ? r.nextLong(header) : r.nextLong(length);
    }

    private static long readLe(MemorySegment b, long at, int width) {
        if (width == 8) {
            return b.get(LONG, at);
        }
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (b.get(ValueLayout.JAVA_BYTE, at + i) & 0xFF);
        }
        return v;
    }

    private static void writeLe(MemorySegment b, long at, int width, long v) {
        for (int i = 0; i < width; i++) {
            b.set(ValueLayout.JAVA_BYTE, at + i, (byte) (v >>> (8 * i)));
        }
    }
}
