package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

/**
 * Cuts evaluation windows from documents. The documents form one token stream, each preceded by
 * BOS as in TinyStories training; the stream is cut into consecutive windows of {@code length}
 * tokens, each starting with BOS (prepended when the cut falls inside a document).
 */
public final class TokenWindows {
    private TokenWindows() {}

    /**
     * @param encode text to token ids, without BOS
     * @param bos    the BOS id, or −1 when the model has none
     * @return up to {@code count} windows (fewer when the documents run out)
     */
    public static List<int[]> cut(
            Iterator<String> documents, Function<String, int[]> encode, int bos, int length, int count) {
        if (length < 2) {
            throw new IllegalArgumentException("window length must be at least 2");
        }
        List<int[]> windows = new ArrayList<>();
        int[] buffer = new int[length];
        int filled = 0;
        while (windows.size() < count && documents.hasNext()) {
            int[] doc = encode.apply(documents.next());
            int i = -1; // -1 stands for the BOS before the document
            while (i < doc.length && windows.size() < count) {
                if (filled == 0 && bos >= 0 && i >= 0) {
                    buffer[filled++] = bos; // a window cut inside a document still starts with BOS
                }
                int token = i < 0 ? bos : doc[i];
                i++;
                if (token < 0) {
                    continue;
                }
                buffer[filled++] = token;
                if (filled == length) {
                    windows.add(buffer.clone());
                    filled = 0;
                }
            }
        }
        return windows;
    }
}
