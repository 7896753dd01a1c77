package org.jacap.kv.eviction.math;

/** How the capacity scorers compute ridge leverage (the same numbers up to rounding). */
public enum LeverageSolver {
    /** The fast path: Cholesky of the d×d capacity matrix A, then ‖L⁻¹vᵢ‖² on the SIMD kernels. */
    CHOLESKY,
    /**
     * The design card's form: Commons Math QR of the (m+d)×d matrix {@code [diag(√w)V; √λ I]},
     * whose {@code RᵀR} is A, then ‖R⁻ᵀvᵢ‖². Never forms A; O((m+d)·d²) in scalar code.
     */
    QR
}
