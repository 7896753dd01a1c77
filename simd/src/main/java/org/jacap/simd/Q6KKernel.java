package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.I512;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.S256;
import static org.jacap.simd.Layouts.S512;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.gguf.GgmlType;

/**
 * Q6_K: super-blocks of 256 weights in 210 bytes, sixteen sub-blocks of 16 with int8 scales.
 * <pre>
 *   bytes   0..127   ql[128]     low 4 bits
 *   bytes 128..191   qh[64]      high 2 bits
 *   bytes 192..207   scales[16]  int8
 *   bytes 208..209   d           f16
 *
 *   half h = 0, 1 covers elements 128h .. 128h+127 with ql[64h..], qh[32h..], scales[8h..];
 *   for l in 0..31 (s = l / 16):
 *     element 128h +      l : ql[l]    low  nibble | qh[l] bits 0-1 << 4   scale[8h + s]
 *     element 128h + 32 + l : ql[l+32] low  nibble | qh[l] bits 2-3 << 4   scale[8h + s + 2]
 *     element 128h + 64 + l : ql[l]    high nibble | qh[l] bits 4-5 << 4   scale[8h + s + 4]
 *     element 128h + 96 + l : ql[l+32] high nibble | qh[l] bits 6-7 << 4   scale[8h + s + 6]
 *
 *   w = (d * scale) * (q - 32)
 * </pre>
 *
 * <p>The matrix-vector {@link #dot} works in two passes per chunk of four super-blocks: unpack
 * the 6-bit values to signed bytes with 32-byte vector operations (a few per 32 weights), then
 * a Q8-style dot over the bytes with one scale per 16. One fused pass needs more vector
 * operations than C2 inlines into one method (it then falls back to boxed vectors, 10x slower);
 * the two passes measured 4.6 G weights/s per core against 1.9 for decode-to-float-then-dot.
 * Under {@link Precision#NATIVE} decode runs the integer kernels instead ({@link #dotQ8Wide},
 * {@link #dotQ8Narrow}: the 6-bit values unpacked in 16-bit lanes, products summed in ints).
 */
final class Q6KKernel implements IntegerDotKernel {
    static final int BYTES = 210;
    private static final VectorSpecies<Byte> B256 = ByteVector.SPECIES_256;

    @Override
    public GgmlType type() {
        return GgmlType.Q6_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            long sc0 = src.get(LONG, offset + 192);
            long sc1 = src.get(LONG, offset + 200);
            // 16 calls of one site per block: quarter i = (h, p, which) covers 8+8 elements
            for (int i = 0; i < 16; i++) {
                int h = i >>> 3;
                int p = (i >>> 1) & 3;
                int which = i & 1;
                long scales = h == 0 ? sc0 : sc1;
                int s = (p >>> 1) + 2 * which;
                float dLo = d * (byte) (scales >>> (8 * s));
                float dHi = d * (byte) (scales >>> (8 * (s + 4)));
                int out = dstOff + 128 * h + 32 * which + 8 * p;
                pair(
                        src,
                        offset + 64 * h + 32 * which + 8 * p,
                        offset + 128 + 32 * h + 8 * p,
                        2 * which,
                        4 + 2 * which,
                        dLo,
                        dHi,
                        dst,
                        out,
                        out + 64);
            }
        }
    }

    /**
     * Eight bytes of ql give two outputs of 8: the low nibbles with qh bits {@code shLo}, the
     * high nibbles with qh bits {@code shHi}. Scalars in and out, so C2 may compile it apart
     * from a large caller without boxing vectors.
     */
    private static void pair(
            MemorySegment src,
            long ql,
            long qh,
            int shLo,
            int shHi,
            float dLo,
            float dHi,
            float[] dst,
            int outLo,
            int outHi) {
        IntVector a = Bytes.u8(src, ql);
        IntVector hb = Bytes.u8(src, qh);
        IntVector lo = a.and(0x0F).or(Bytes.field(hb, shLo, 3, 4)).sub(32);
        IntVector hi = a.lanewise(VectorOperators.LSHR, 4)
                .or(Bytes.field(hb, shHi, 3, 4))
                .sub(32);
        Bytes.toFloat(lo).mul(dLo).intoArray(dst, outLo);
        Bytes.toFloat(hi).mul(dHi).intoArray(dst, outHi);
    }

    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        for (int c = 0; c < count; c += DOT_CHUNK, offset += DOT_CHUNK / 256 * BYTES) {
            int n = Math.min(DOT_CHUNK, count - c);
            unpack(src, offset, n / 256, scratch.bytes, scratch.scales);
            sum += dotBytes(scratch.bytes, scratch.scales, x, xOff + c, n);
        }
        return sum;
    }

    /**
     * Wide-form scale shuffles: at 512 bits a product vector holds the 32 weights of two
     * sub-blocks, so after the pair sums ints 0-7 take scale {@code 2j} and ints 8-15 scale
     * {@code 2j+1} of the super-block's sixteen.
     */
    private static final VectorShuffle<Integer>[] SCALE_PAIRS = scalePairs();

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Integer>[] scalePairs() {
        VectorShuffle<Integer>[] s = new VectorShuffle[8];
        for (int j = 0; j < 8; j++) {
            final int base = 2 * j;
            s[j] = VectorShuffle.fromOp(I512, i -> base + i / 8);
        }
        return s;
    }

    /**
     * Each super-block's sum comes from a small method per form ({@link #blockWide},
     * {@link #blockNarrow}) as the exact integer {@code Σ_j scale_j·Σ q·x}, then times its scales
     * in float, in block order: the scalar twin's arithmetic, so both forms give its bits. With
     * the block loop, a vector accumulator and its conversion and FMA in one method, C2 ran out
     * of its inlining budget (NodeCountInliningCutoff) before the last vector calls.
     */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            sum += blockWide(src, o, x.q, 256 * b) * (HalfFloats.f16ToFloat(src.get(SHORT, o + 208)) * x.d[b]);
        }
        return sum;
    }

    /**
     * {@code Σ_j scale_j·Σ (q−32)·xq} of the super-block at {@code o} against {@code xq[xo, +256)},
     * in 512-bit vectors. Each half's products are reduced to an int at once: no vector is carried
     * from one iteration to the next. A vector carried by a loop (a phi) has no exact class when C2
     * parses the loop, so calls on it are devirtualized from type profiles, and the Vector API's
     * shorthands ({@code add}, {@code mul}) share one profile with every caller: after a prefill
     * had sent 256-bit int vectors through them, C2 left {@code isum.add(...)} a virtual call, run as
     * a boxed Java loop, in about half of the processes (Gemma's decode 18 t/s instead of 22).
     */
    private static int blockWide(MemorySegment src, long o, short[] xq, int xo) {
        IntVector scales = (IntVector)
                ByteVector.fromMemorySegment(B128, src, o + 192, LE).convertShape(VectorOperators.B2I, I512, 0);
        int sum = 0;
        for (int h = 0; h < 2; h++, xo += 128) {
            long ql = o + 64 * h;
            ShortVector a = (ShortVector) ByteVector.fromMemorySegment(B256, src, ql, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
            ShortVector c = (ShortVector) ByteVector.fromMemorySegment(B256, src, ql + 32, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
            ShortVector hb = (ShortVector) ByteVector.fromMemorySegment(B256, src, o + 128 + 32 * h, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
            ShortVector p0 = a.and((short) 0x0F)
                    .or(hb.and((short) 0x03).lanewise(VectorOperators.LSHL, 4))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S512, xq, xo));
            ShortVector p1 = c.and((short) 0x0F)
                    .or(hb.and((short) 0x0C).lanewise(VectorOperators.LSHL, 2))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S512, xq, xo + 32));
            ShortVector p2 = a.lanewise(VectorOperators.LSHR, 4)
                    .or(hb.and((short) 0x30))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S512, xq, xo + 64));
            ShortVector p3 = c.lanewise(VectorOperators.LSHR, 4)
                    .or(hb.and((short) 0xC0).lanewise(VectorOperators.LSHR, 2))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S512, xq, xo + 96));
            // pair sums in three ops (|q-32|·|x| <= 4064, two of them < 2^15): see Bytes
            IntVector i0 = p0.reinterpretAsInts();
            IntVector i1 = p1.reinterpretAsInts();
            IntVector i2 = p2.reinterpretAsInts();
            IntVector i3 = p3.reinterpretAsInts();
            i0 = i0.add(i0.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i1 = i1.add(i1.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i2 = i2.add(i2.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i3 = i3.add(i3.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            sum += i0.mul(scales.rearrange(SCALE_PAIRS[4 * h]))
                    .add(i1.mul(scales.rearrange(SCALE_PAIRS[4 * h + 1])))
                    .add(i2.mul(scales.rearrange(SCALE_PAIRS[4 * h + 2])))
                    .add(i3.mul(scales.rearrange(SCALE_PAIRS[4 * h + 3])))
                    .reduceLanes(VectorOperators.ADD);
        }
        return sum;
    }

    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            sum += blockNarrow(src, o, x.q, 256 * b) * (HalfFloats.f16ToFloat(src.get(SHORT, o + 208)) * x.d[b]);
        }
        return sum;
    }

    /** {@link #blockWide} in 256-bit vectors (AVX2). */
    private static int blockNarrow(MemorySegment src, long o, short[] xq, int xb) {
        int sum = 0; // no vector carried across iterations, as in blockWide
        for (int g = 0; g < 4; g++) { // quarter g: half g / 2, bytes 16 * (g % 2) of it
            int h = g >>> 1;
            int p = g & 1;
            long ql = o + 64 * h + 16 * p;
            int xo = xb + 128 * h + 16 * p;
            long sc = src.get(LONG, o + 192 + 8 * h) >>> (8 * p); // scale 2k + p of the half at byte 2k
            ShortVector a = (ShortVector) ByteVector.fromMemorySegment(B128, src, ql, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector c = (ShortVector) ByteVector.fromMemorySegment(B128, src, ql + 32, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector hb = (ShortVector) ByteVector.fromMemorySegment(B128, src, o + 128 + 32 * h + 16 * p, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector p0 = a.and((short) 0x0F)
                    .or(hb.and((short) 0x03).lanewise(VectorOperators.LSHL, 4))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S256, xq, xo));
            ShortVector p1 = c.and((short) 0x0F)
                    .or(hb.and((short) 0x0C).lanewise(VectorOperators.LSHL, 2))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S256, xq, xo + 32));
            ShortVector p2 = a.lanewise(VectorOperators.LSHR, 4)
                    .or(hb.and((short) 0x30))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S256, xq, xo + 64));
            ShortVector p3 = c.lanewise(VectorOperators.LSHR, 4)
                    .or(hb.and((short) 0xC0).lanewise(VectorOperators.LSHR, 2))
                    .sub((short) 32)
                    .mul(ShortVector.fromArray(S256, xq, xo + 96));
            IntVector i0 = p0.reinterpretAsInts();
            IntVector i1 = p1.reinterpretAsInts();
            IntVector i2 = p2.reinterpretAsInts();
            IntVector i3 = p3.reinterpretAsInts();
            i0 = i0.add(i0.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i1 = i1.add(i1.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i2 = i2.add(i2.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            i3 = i3.add(i3.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            sum += i0.mul((byte) sc)
                    .add(i1.mul((byte) (sc >>> 16)))
                    .add(i2.mul((byte) (sc >>> 32)))
                    .add(i3.mul((byte) (sc >>> 48)))
                    .reduceLanes(VectorOperators.ADD);
        }
        return sum;
    }

    /** Scalar twin of the integer kernels: exact sums per sub-block of 16 and per super-block. */
    @Override
    public float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int isum = 0;
            for (int j = 0; j < 16; j++) {
                int s = 0;
                for (int e = 16 * j; e < 16 * j + 16; e++) {
                    s += value(src, o, e) * x.q[256 * b + e];
                }
                isum += src.get(BYTE, o + 192 + j) * s;
            }
            sum += isum * (HalfFloats.f16ToFloat(src.get(SHORT, o + 208)) * x.d[b]);
        }
        return sum;
    }

    /** {@code q - 32} of element {@code e} of the super-block at {@code o}, from the layout above. */
    private static int value(MemorySegment src, long o, int e) {
        int h = e / 128;
        int k = (e % 128) / 32;
        int l = e % 32;
        int ql = src.get(BYTE, o + 64 * h + 32 * (k & 1) + l) & 0xFF;
        int qh = src.get(BYTE, o + 128 + 32 * h + l) & 0xFF;
        int low = k < 2 ? ql & 0x0F : ql >>> 4;
        return (low | ((qh >>> (2 * k)) & 3) << 4) - 32;
    }

    /** {@code blocks} super-blocks to {@code q - 32} in {@code q[256b ..]} and {@code d * scale} per 16 in {@code scales}. */
    static void unpack(MemorySegment src, long offset, int blocks, byte[] q, float[] scales) {
        for (int b = 0; b < blocks; b++, offset += BYTES) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, offset + 192, LE))
                    .mul(d)
                    .intoArray(scales, 16 * b);
            Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, offset + 200, LE))
                    .mul(d)
                    .intoArray(scales, 16 * b + 8);
            for (int h = 0; h < 2; h++) {
                half(src, offset + 64 * h, offset + 128 + 32 * h, q, 256 * b + 128 * h);
            }
        }
    }

    /** {@code Σ_i scales[i/16] * q[i] * x[xOff+i]} over {@code count} (a multiple of 32) weights. */
    static float dotBytes(byte[] q, float[] scales, float[] x, int xOff, int count) {
        FloatVector acc = FloatVector.zero(F256);
        FloatVector acc2 = FloatVector.zero(F256);
        // Counted over groups of 32 so every index is linear in k: C2 then unrolls and hoists the
        // bounds checks (with scales[i >>> 4] it kept two checks per group and did not unroll).
        for (int k = 0, groups = count / 32; k < groups; k++) {
            int i = 32 * k;
            FloatVector s1 =
                    Bytes.toFloat(ByteVector.fromArray(B64, q, i)).mul(FloatVector.fromArray(F256, x, xOff + i));
            FloatVector s2 = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 16))
                    .mul(FloatVector.fromArray(F256, x, xOff + i + 16));
            s1 = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 8))
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 8), s1);
            s2 = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 24))
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 24), s2);
            acc = s1.fma(FloatVector.broadcast(F256, scales[2 * k]), acc);
            acc2 = s2.fma(FloatVector.broadcast(F256, scales[2 * k + 1]), acc2);
        }
        return LaneSums.sum256(acc.add(acc2));
    }

    /** Scalar twin of {@link #dot}: the same two passes. */
    @Override
    public float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        for (int c = 0; c < count; c += DOT_CHUNK, offset += DOT_CHUNK / 256 * BYTES) {
            int n = Math.min(DOT_CHUNK, count - c);
            unpackScalar(src, offset, n / 256, scratch.bytes, scratch.scales);
            float s = 0f;
            for (int i = 0; i < n; i += 16) {
                float t = 0f;
                for (int j = i; j < i + 16; j++) {
                    t += scratch.bytes[j] * x[xOff + c + j];
                }
                s += t * scratch.scales[i / 16];
            }
            sum += s;
        }
        return sum;
    }

    /**
     * One half (128 weights) from 64 bytes of ql and 32 of qh, 32 weights per vector. Byte shifts
     * go through 16-bit lanes; the masks drop the bits that cross from the neighbouring byte.
     */
    private static void half(MemorySegment src, long ql, long qh, byte[] q, int o) {
        ByteVector a = ByteVector.fromMemorySegment(B256, src, ql, LE);
        ByteVector c = ByteVector.fromMemorySegment(B256, src, ql + 32, LE);
        ByteVector h = ByteVector.fromMemorySegment(B256, src, qh, LE);
        ShortVector hs = h.reinterpretAsShorts();
        a.and((byte) 0x0F)
                .or(hs.lanewise(VectorOperators.LSHL, 4).reinterpretAsBytes().and((byte) 0x30))
                .sub((byte) 32)
                .intoArray(q, o);
        c.and((byte) 0x0F)
                .or(hs.lanewise(VectorOperators.LSHL, 2).reinterpretAsBytes().and((byte) 0x30))
                .sub((byte) 32)
                .intoArray(q, o + 32);
        a.reinterpretAsShorts()
                .lanewise(VectorOperators.LSHR, 4)
                .reinterpretAsBytes()
                .and((byte) 0x0F)
                .or(h.and((byte) 0x30))
                .sub((byte) 32)
                .intoArray(q, o + 64);
        c.reinterpretAsShorts()
                .lanewise(VectorOperators.LSHR, 4)
                .reinterpretAsBytes()
                .and((byte) 0x0F)
                .or(hs.lanewise(VectorOperators.LSHR, 2).reinterpretAsBytes().and((byte) 0x30))
                .sub((byte) 32)
                .intoArray(q, o + 96);
    }

    /** Scalar twin of the unpack pass of {@link #dot}. */
    static void unpackScalar(MemorySegment src, long offset, int blocks, byte[] q, float[] scales) {
        for (int b = 0; b < blocks; b++, offset += BYTES) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            for (int i = 0; i < 16; i++) {
                scales[16 * b + i] = src.get(BYTE, offset + 192 + i) * d;
            }
            for (int h = 0; h < 2; h++) {
                long ql = offset + 64 * h;
                long qh = offset + 128 + 32 * h;
                int o = 256 * b + 128 * h;
                for (int l = 0; l < 32; l++) {
                    int a = src.get(BYTE, ql + l) & 0xFF;
                    int c = src.get(BYTE, ql + l + 32) & 0xFF;
                    int hb = src.get(BYTE, qh + l) & 0xFF;
                    q[o + l] = (byte) (((a & 0x0F) | ((hb & 3) << 4)) - 32);
                    q[o + 32 + l] = (byte) (((c & 0x0F) | (((hb >>> 2) & 3) << 4)) - 32);
                    q[o + 64 + l] = (byte) (((a >>> 4) | (((hb >>> 4) & 3) << 4)) - 32);
                    q[o + 96 + l] = (byte) (((c >>> 4) | (((hb >>> 6) & 3) << 4)) - 32);
                }
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            for (int h = 0; h < 2; h++) {
                long ql = offset + 64 * h;
                long qh = offset + 128 + 32 * h;
                long sc = offset + 192 + 8 * h;
                int out = dstOff + 128 * h;
                for (int l = 0; l < 32; l++) {
                    int s = l / 16;
                    int a = src.get(BYTE, ql + l) & 0xFF;
                    int c = src.get(BYTE, ql + l + 32) & 0xFF;
                    int hb = src.get(BYTE, qh + l) & 0xFF;
                    int q1 = ((a & 0x0F) | ((hb & 3) << 4)) - 32;
                    int q2 = ((c & 0x0F) | (((hb >>> 2) & 3) << 4)) - 32;
                    int q3 = ((a >>> 4) | (((hb >>> 4) & 3) << 4)) - 32;
                    int q4 = ((c >>> 4) | (((hb >>> 6) & 3) << 4)) - 32;
                    dst[out + l] = d * src.get(BYTE, sc + s) * q1;
                    dst[out + 32 + l] = d * src.get(BYTE, sc + s + 2) * q2;
                    dst[out + 64 + l] = d * src.get(BYTE, sc + s + 4) * q3;
                    dst[out + 96 + l] = d * src.get(BYTE, sc + s + 6) * q4;
                }
            }
        }
    }

    @Override
    public void dotQ8RowsWide(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows) {
        for (int r = 0; r < rows; r++) {
            out[outOff + r] = dotQ8Wide(src, offset + r * rowBytes, x, count);
        }
    }

    @Override
    public void dotQ8RowsNarrow(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows) {
        for (int r = 0; r < rows; r++) {
            out[outOff + r] = dotQ8Narrow(src, offset + r * rowBytes, x, count);
        }
    }
}
