package org.jacap.simd;

import org.jacap.gguf.GgmlType;

/** The table: GGML type to kernel, one switch, resolved when a tensor is bound. */
public final class Kernels {
    private Kernels() {}

    private static final F32Kernel F32 = new F32Kernel();
    private static final F16Kernel F16 = new F16Kernel();
    private static final BF16Kernel BF16 = new BF16Kernel();
    private static final Q8_0Kernel Q8_0 = new Q8_0Kernel();
    private static final Q4_0Kernel Q4_0 = new Q4_0Kernel();
    private static final Q4_1Kernel Q4_1 = new Q4_1Kernel();
    private static final Q5_0Kernel Q5_0 = new Q5_0Kernel();
    private static final Q5_1Kernel Q5_1 = new Q5_1Kernel();
    private static final Q2KKernel Q2_K = new Q2KKernel();
    private static final Q3KKernel Q3_K = new Q3KKernel();
    private static final Q4KKernel Q4_K = new Q4KKernel();
    private static final Q5KKernel Q5_K = new Q5KKernel();
    private static final Q6KKernel Q6_K = new Q6KKernel();
    private static final Q8KKernel Q8_K = new Q8KKernel();

    /** The kernel for {@code type}; {@link UnsupportedTensorTypeException} if there is none. */
    public static TypeKernel of(GgmlType type) {
        TypeKernel k = lookup(type);
        if (k == null) {
            throw new UnsupportedTensorTypeException(type, "no dequantize/dot kernel for it in org.jacap.simd");
        }
        return k;
    }

    /** True when {@link #of} has a kernel for {@code type}. */
    public static boolean supports(GgmlType type) {
        return lookup(type) != null;
    }

    private static TypeKernel lookup(GgmlType type) {
        return switch (type) {
            case F32 -> F32;
            case F16 -> F16;
            case BF16 -> BF16;
            case Q8_0 -> Q8_0;
            case Q4_0 -> Q4_0;
            case Q4_1 -> Q4_1;
            case Q5_0 -> Q5_0;
            case Q5_1 -> Q5_1;
            case Q2_K -> Q2_K;
            case Q3_K -> Q3_K;
            case Q4_K -> Q4_K;
            case Q5_K -> Q5_K;
            case Q6_K -> Q6_K;
            case Q8_K -> Q8_K;
            default -> null;
        };
    }
}
