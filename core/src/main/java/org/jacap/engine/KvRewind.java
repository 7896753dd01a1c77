package org.jacap.engine;

import java.util.Arrays;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;

/** Cuts a cache back to a position: every head keeps its entries of earlier positions. */
final class KvRewind {
    private KvRewind() {}

    static void cut(InferenceState state, int position) {
        KvCache cache = state.kvCache();
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                int[] positions = cache.positions(l, g);
                int n = cache.length(l, g);
                int keep = 0;
                while (keep < n && positions[keep] < position) { // ascending within a head
                    keep++;
                }
                if (keep < n) {
                    int[] kept = new int[keep];
                    Arrays.setAll(kept, i -> i);
                    cache.retain(l, g, kept);
                }
            }
        }
        state.setPosition(position);
    }
}
