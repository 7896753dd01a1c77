package org.jacap.tokenizer;

/**
 * Hugging Face's {@code clean_up_tokenization_spaces}, as llama.cpp's detokenizer applies it for
 * most byte-level BPE vocabularies: drops the space before {@code ? ! . ,}, around a lone
 * apostrophe, and before the contractions {@code 's 'm 're 've}. Works in place, pass by pass,
 * exactly like the reference so that odd inputs give the same result.
 */
final class SpaceCleanup {
    private SpaceCleanup() {}

    static String apply(String s) {
        char[] t = s.toCharArray();
        int total = t.length;

        // Pass 1: " ?", " !", " .", " ,"
        int n = total;
        total = n > 0 ? 1 : 0;
        for (int i = 1; i < n; i++) {
            char x = t[i];
            if (t[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) {
                total--;
            }
            t[total++] = x;
        }

        // Pass 2: " ' " → "'"
        n = total;
        total = n > 0 ? 1 : 0;
        for (int i = 1; i < n; i++) {
            char x = t[i];
            if (x == '\'' && i + 1 < n && t[i - 1] == ' ' && t[i + 1] == ' ') {
                total--;
                t[++i] = '\0'; // the space after is dropped (and no longer counts as a space)
            }
            t[total++] = x;
        }

        // Pass 3: " 's", " 'm", " 're", " 've" lose their space; " 't", " 'd", " 'll" keep it
        n = total;
        total = n > 0 ? 1 : 0;
        for (int i = 1; i < n; i++) {
            char x = t[i];
            if (t[i - 1] == ' ' && x == '\'' && i + 1 < n) {
                char x1 = t[i + 1];
                if (x1 == 's' || x1 == 'm') {
                    total--;
                } else if (i + 2 < n) {
                    char x2 = t[i + 2];
                    if ((x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) {
                        total--;
                    }
                }
            }
            t[total++] = x;
        }
        return new String(t, 0, total);
    }
}
