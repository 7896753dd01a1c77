package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionSettings;
import org.junit.jupiter.api.Test;

/** The --kv-* flags into eviction settings, each bad combination named by its flag. */
class KvFlagsTest {

    @Test
    void defaultsAndTheFlagOfEveryBadCombination() {
        assertThat(KvFlags.parse(null, null, null, null, null, null)).isNull();
        assertThat(KvFlags.parse("none", null, null, null, null, null)).isNull();
        EvictionSettings b = KvFlags.parse("jacap-paper:tau=20", null, null, 1024, null, null);
        assertThat(b.budget()).isEqualTo(1024);
        assertThat(b.slack()).isEqualTo(128);
        assertThat(b.ratio()).isZero();
        assertThat(b.policy().scorer().spec()).contains("tau=20.0");
        assertThat(KvFlags.parse("capkv", null, null, 64, null, null).slack()).isEqualTo(16);
        EvictionSettings p = KvFlags.parse("knorm", "ada", 0.5, 64, 8, "4,16");
        assertThat(p.policy().describe()).isEqualTo("knorm:protect_sinks=4,protect_recent=16 / ada:alpha=0.2");
        assertThat(p.describe()).endsWith(", ratio 0.5, budget 64 + slack 8");
        // without --kv-allocator a policy gets the allocator its scores are made for
        assertThat(KvFlags.parse("jacap", null, 0.5, null, null, null).policy().describe())
                .endsWith(",heads=capacity / ada:alpha=0.2");
        assertThat(KvFlags.parse("jacap", null, null, 64, null, null).policy().describe())
                .contains(",reserve=48,budget_reserve=48,")
                .endsWith(",heads=uniform / uniform");
        assertThat(KvFlags.parse("jacap:heads=capacity", null, 0.5, null, null, "4,16")
                        .policy()
                        .describe())
                .contains(",heads=capacity")
                .endsWith(" / ada:alpha=0.2");
        // under a budget the scorer's head shares give way to the same count per head
        assertThat(KvFlags.parse("jacap:heads=capacity", null, null, 64, null, "4,16")
                        .policy()
                        .describe())
                .contains(",heads=uniform")
                .endsWith(" / uniform");
        assertThat(KvFlags.parse("jacap:heads=capacity", "uniform", 0.5, null, null, null)
                        .policy()
                        .describe())
                .endsWith(" / uniform");
        assertThat(KvFlags.parse("snapkv:window=8", null, null, 64, null, "0,4")
                        .policy()
                        .scorer()
                        .spec())
                .isEqualTo("snapkv:window_size=8,kernel_size=5,protect_sinks=0,protect_recent=4");

        assertError(() -> KvFlags.parse("jacap", null, null, null, null, null), "needs --kv-ratio R");
        assertError(() -> KvFlags.parse(null, null, 0.5, null, null, null), "--kv-ratio needs an evicting");
        assertError(() -> KvFlags.parse("none", null, null, null, 4, null), "--kv-slack needs an evicting");
        assertError(() -> KvFlags.parse("jacap", null, 1.0, null, null, null), "[0, 1), got 1.0");
        assertError(() -> KvFlags.parse("jacap", null, Double.NaN, null, null, null), "[0, 1), got NaN");
        assertError(() -> KvFlags.parse("jacap", null, null, -3, null, null), "--kv-budget must be >= 1");
        assertError(() -> KvFlags.parse("jacap", null, 0.5, null, 8, null), "--kv-slack needs --kv-budget");
        assertError(() -> KvFlags.parse("jacap", null, null, 8, 0, null), "--kv-slack must be >= 1");
        assertError(() -> KvFlags.parse("jacap", null, null, 8, null, "1,x"), "SINKS,RECENT");
        assertError(() -> KvFlags.parse("jacap", null, null, 8, null, "-1,2"), ">= 0");
        assertError(() -> KvFlags.parse("jacap:protect_recent=3", null, null, 8, null, "1,2"), "give one");
        assertError(() -> KvFlags.parse("jacop", null, null, 8, null, null), "unknown KV eviction policy");
        assertError(() -> KvFlags.parse("jacap", "fair", null, 8, null, null), "unknown KV budget allocator");
    }

    private static void assertError(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(JacapException.class).hasMessageContaining(message);
    }
}
