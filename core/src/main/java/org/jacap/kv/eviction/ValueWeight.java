package org.jacap.kv.eviction;

import java.util.Locale;

/**
 * How observed attention weighs an entry by its value: what its eviction would change in the
 * head's output, not only how much attention it drew.
 */
public enum ValueWeight {
    /** Attention alone (H2O). */
    NONE,
    /** Attention × ‖v_i‖₁ (VATP, value-aware token pruning). */
    NORM,
    /**
     * Attention × ‖v_i − ō_h‖₂, ō_h the attention-weighted mean value of query head h: evicting i
     * moves the renormalised output by about {@code a_i (ō − v_i)}, so an entry whose value is
     * what the head outputs anyway costs little.
     */
    DEVIATION,
    /**
     * As {@link #DEVIATION}, each value dimension weighed by the squared norm of the W_O column
     * that carries it into the residual stream: {@code a_i (Σ_c e_hc (v_ic − ō_hc)²)^½}, the
     * output change's size with W_O's columns taken as orthogonal. Without the energies (a
     * snapshot that lacks them) it is {@link #DEVIATION}.
     */
    OUTPUT;

    /** The spec spelling: {@code none}, {@code norm}, {@code deviation}. */
    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }
}
