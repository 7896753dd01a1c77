package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * Head counts of one attention layer. Query head {@code h} reads KV head {@code h / groupSize()},
 * as HF {@code repeat_kv} and llama.cpp do.
 */
public record AttentionShape(int queryHeads, int kvHeads, int headDim) {
    public AttentionShape {
        if (queryHeads <= 0 || kvHeads <= 0 || headDim <= 0 || queryHeads % kvHeads != 0) {
            throw new JacapException("bad attention shape: " + queryHeads + " query heads, " + kvHeads
                    + " KV heads, head dim " + headDim);
        }
    }

    /** G = Hq / Hkv, the query heads sharing one KV head. */
    public int groupSize() {
        return queryHeads / kvHeads;
    }

    public int kvHeadOf(int queryHead) {
        return queryHead / groupSize();
    }

    public int firstQueryHead(int kvHead) {
        return kvHead * groupSize();
    }
}
