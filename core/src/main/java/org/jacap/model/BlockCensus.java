package org.jacap.model;

import java.util.BitSet;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;

/**
 * Checks {@code {arch}.block_count} against the {@code blk.N.*} tensors the file holds, before
 * anything that scales with the block count is built: a small hostile file claiming 2^30 blocks
 * must fail in microseconds, not after gigabytes of per-block configuration.
 */
final class BlockCensus {
    private BlockCensus() {}

    /** Fails unless the file holds tensors for exactly blocks 0 … block_count-1 (a missing one is named later). */
    static void check(GgufFile file, String architecture) {
        ArchMetadata m = new ArchMetadata(file.metadata(), architecture);
        if (!m.has("block_count")) {
            return; // ModelConfig reports the missing key
        }
        int claimed = m.intOr("block_count", 0);
        if (claimed <= 0) {
            return; // ModelConfig reports the bad value
        }
        BitSet present = new BitSet();
        for (GgufTensorInfo t : file.tensors()) {
            int index = blockIndex(t.name());
            if (index >= 0) {
                present.set(index);
            }
        }
        int held = present.length(); // highest block index + 1
        if (held != claimed) {
            throw new JacapException("metadata key '" + m.key("block_count") + "' = " + claimed + " but the file holds "
                    + (held == 0 ? "no block tensors" : "tensors for blocks 0 to " + (held - 1)) + " ("
                    + present.cardinality() + " blocks)");
        }
    }

    /** N of a {@code blk.N.…} name, or -1 (also for an index that does not fit an int). */
    static int blockIndex(String name) {
        if (!name.startsWith("blk.")) {
            return -1;
        }
        int end = name.indexOf('.', 4);
        if (end <= 4 || end - 4 > 9) {
            return -1;
        }
        int n = 0;
        for (int i = 4; i < end; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
