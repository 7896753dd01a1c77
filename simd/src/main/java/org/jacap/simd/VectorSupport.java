package org.jacap.simd;

import java.util.Optional;

/**
 * What the Vector API offers on this JVM and CPU, probed once. The CLI prints {@link #warning()}
 * at start-up so that a slow path (no incubator module, or vectors narrower than 256 bits) is
 * never silent.
 *
 * <p>The probe touches {@code jdk.incubator.vector} classes only after checking that the module
 * is in the boot layer, so this class itself loads (and reports) even when the module is missing;
 * every other kernel class in this package needs the module.
 */
public final class VectorSupport {

    /** The width the kernels are tuned for (AVX2: 8 float lanes). */
    public static final int EXPECTED_BITS = 256;

    /** The incubator module name, as passed to {@code --add-modules}. */
    public static final String MODULE = "jdk.incubator.vector";

    private static final Status STATUS = probe();

    private VectorSupport() {}

    /**
     * The probed facts.
     *
     * @param modulePresent whether {@code jdk.incubator.vector} is in the boot layer
     * @param vectorBits    preferred vector width in bits (0 when the module is missing)
     * @param floatLanes    float lanes of {@code FloatVector.SPECIES_PREFERRED} (0 when missing)
     * @param doubleLanes   double lanes of {@code DoubleVector.SPECIES_PREFERRED} (0 when missing)
     */
    public record Status(boolean modulePresent, int vectorBits, int floatLanes, int doubleLanes) {

        /** True when the kernels run at the width they were written for. */
        public boolean fast() {
            return modulePresent && vectorBits >= EXPECTED_BITS;
        }

        /** One line describing the set-up. */
        public String describe() {
            if (!modulePresent) {
                return "SIMD: unavailable (" + MODULE + " not loaded)";
            }
            return "SIMD: " + vectorBits + "-bit vectors, " + floatLanes + " float / " + doubleLanes + " double lanes ("
                    + MODULE + ")";
        }

        /** A one-line warning when this is a slow path, empty when all is well. */
        public Optional<String> warning() {
            if (!modulePresent) {
                return Optional.of("WARNING: " + MODULE + " is not loaded: Jacap's kernels cannot run; start the JVM"
                        + " with --add-modules " + MODULE + " (the jacap launcher does this).");
            }
            if (vectorBits < EXPECTED_BITS) {
                return Optional.of("WARNING: preferred vector width is " + vectorBits + " bits (" + floatLanes
                        + " float lanes), below the " + EXPECTED_BITS + " bits Jacap is tuned for:"
                        + " kernels will run several times slower (no AVX2 on this CPU, or -XX:UseAVX lowered?).");
            }
            return Optional.empty();
        }
    }

    /** The probed status (immutable, computed once). */
    public static Status status() {
        return STATUS;
    }

    /** Preferred float lane count, or 0 when the Vector API is missing. */
    public static int floatLanes() {
        return STATUS.floatLanes();
    }

    /** True when vectors are present and at least {@value #EXPECTED_BITS} bits wide. */
    public static boolean fast() {
        return STATUS.fast();
    }

    /** One line describing the SIMD set-up, e.g. for {@code jacap --version} or bench headers. */
    public static String describe() {
        return STATUS.describe();
    }

    /** A one-line warning when running on the slow path, empty when all is well. */
    public static Optional<String> warning() {
        return STATUS.warning();
    }

    /**
     * Throws with the warning text when the incubator module is missing, so that callers fail at
     * start-up with a clear message rather than with a {@link NoClassDefFoundError} mid-run.
     */
    public static void requireVectorModule() {
        if (!STATUS.modulePresent()) {
            throw new IllegalStateException(warning().orElseThrow());
        }
    }

    private static Status probe() {
        if (ModuleLayer.boot().findModule(MODULE).isEmpty()) {
            return new Status(false, 0, 0, 0);
        }
        try {
            return Probe.status();
        } catch (LinkageError e) {
            return new Status(false, 0, 0, 0);
        }
    }

    /** Separate holder so that the Vector API classes are only resolved when the module is present. */
    private static final class Probe {
        static Status status() {
            var f = jdk.incubator.vector.FloatVector.SPECIES_PREFERRED;
            var d = jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED;
            return new Status(true, f.vectorBitSize(), f.length(), d.length());
        }
    }
}
