package org.jacap.gguf;

/**
 * The one table of GGML tensor types: id as stored in GGUF, elements per block and bytes per
 * block. Kernels are attached elsewhere (module {@code simd}); this table only knows geometry,
 * so files holding types without a kernel still open and list correctly.
 */
public enum GgmlType {
    F32(0, 1, 4),
    F16(1, 1, 2),
    Q4_0(2, 32, 18),
    Q4_1(3, 32, 20),
    Q5_0(6, 32, 22),
    Q5_1(7, 32, 24),
    Q8_0(8, 32, 34),
    Q8_1(9, 32, 36),
    Q2_K(10, 256, 84),
    Q3_K(11, 256, 110),
    Q4_K(12, 256, 144),
    Q5_K(13, 256, 176),
    Q6_K(14, 256, 210),
    Q8_K(15, 256, 292),
    IQ2_XXS(16, 256, 66),
    IQ2_XS(17, 256, 74),
    IQ3_XXS(18, 256, 98),
    IQ1_S(19, 256, 50),
    IQ4_NL(20, 32, 18),
    IQ3_S(21, 256, 110),
    IQ2_S(22, 256, 82),
    IQ4_XS(23, 256, 136),
    I8(24, 1, 1),
    I16(25, 1, 2),
    I32(26, 1, 4),
    I64(27, 1, 8),
    F64(28, 1, 8),
    IQ1_M(29, 256, 56),
    BF16(30, 1, 2),
    TQ1_0(34, 256, 54),
    TQ2_0(35, 256, 66),
    MXFP4(39, 32, 17);

    private static final GgmlType[] BY_ID = new GgmlType[64];

    static {
        for (GgmlType t : values()) {
            BY_ID[t.id] = t;
        }
    }

    private final int id;
    private final int blockSize;
    private final int bytesPerBlock;

    GgmlType(int id, int blockSize, int bytesPerBlock) {
        this.id = id;
        this.blockSize = blockSize;
        this.bytesPerBlock = bytesPerBlock;
    }

    /** The numeric id stored in GGUF tensor infos. */
    public int id() {
        return id;
    }

    /** Elements per block (1 for plain float/int types). */
    public int blockSize() {
        return blockSize;
    }

    /** Bytes per block. */
    public int bytesPerBlock() {
        return bytesPerBlock;
    }

    /** True for types whose block holds more than one element (quantized types). */
    public boolean isQuantized() {
        return blockSize > 1;
    }

    /**
     * Bytes taken by {@code elements} values, or -1 when {@code elements} is not a whole number
     * of blocks or the size overflows a long.
     */
    public long bytesFor(long elements) {
        if (elements < 0 || elements % blockSize != 0) {
            return -1;
        }
        long blocks = elements / blockSize;
        if (blocks > Long.MAX_VALUE / bytesPerBlock) {
            return -1;
        }
        return blocks * bytesPerBlock;
    }

    /** The type with this GGUF id, or null when the id is unknown. */
    public static GgmlType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
