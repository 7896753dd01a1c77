package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

class VectorSupportTest {

    @Test
    void reportsThePreferredSpeciesOfThisJvm() {
        VectorSupport.Status s = VectorSupport.status();
        assertThat(s.modulePresent()).isTrue();
        assertThat(s.floatLanes()).isEqualTo(FloatVector.SPECIES_PREFERRED.length());
        assertThat(s.vectorBits()).isEqualTo(FloatVector.SPECIES_PREFERRED.vectorBitSize());
        assertThat(s.doubleLanes() * 2).isEqualTo(s.floatLanes());
        assertThat(VectorSupport.describe()).contains(s.vectorBits() + "-bit").contains(s.floatLanes() + " float");
        VectorSupport.requireVectorModule();
    }

    @Test
    void warnsExactlyWhenNarrowerThan256Bits() {
        boolean narrow = FloatVector.SPECIES_PREFERRED.vectorBitSize() < 256;
        assertThat(VectorSupport.warning().isPresent()).isEqualTo(narrow);
        assertThat(VectorSupport.fast()).isEqualTo(!narrow);
    }

    @Test
    void statusRecordsJudgeWidthAndModule() {
        assertThat(new VectorSupport.Status(true, 128, 4, 2).fast()).isFalse();
        assertThat(new VectorSupport.Status(true, 256, 8, 4).fast()).isTrue();
        assertThat(new VectorSupport.Status(true, 512, 16, 8).fast()).isTrue();
        assertThat(new VectorSupport.Status(false, 0, 0, 0).fast()).isFalse();
        assertThat(new VectorSupport.Status(true, 128, 4, 2).warning())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("WARNING")
                        .contains("128 bits")
                        .contains("4 float lanes")
                        .doesNotContain("\n"));
        assertThat(new VectorSupport.Status(false, 0, 0, 0).warning())
                .hasValueSatisfying(w -> assertThat(w)
                        .contains("--add-modules jdk.incubator.vector")
                        .doesNotContain("\n"));
        assertThat(new VectorSupport.Status(true, 256, 8, 4).warning()).isEmpty();
        assertThat(new VectorSupport.Status(false, 0, 0, 0).describe()).contains("unavailable");
    }
}
