package org.jacap.model;

import org.jacap.simd.WeightMatrix;

/** A linear map {@code y = W·x (+ bias)}; {@code bias} is null when the model has none. */
public record Projection(WeightMatrix weight, float[] bias) {

    public static Projection of(WeightMatrix weight) {
        return new Projection(weight, null);
    }

    public int rows() {
        return weight.rows();
    }
}
