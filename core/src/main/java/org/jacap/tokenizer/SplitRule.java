package org.jacap.tokenizer;

/**
 * One step of a pre-tokenizer: splits the fragment {@code [from, to)} (code point indices) into
 * words and appends the end index of each word to {@code ends}. Nothing is dropped: text between
 * regex matches becomes words of its own, as in llama.cpp's {@code unicode_regex_split}.
 */
sealed interface SplitRule permits Gpt2Split, Llama3Split, RegexSplit {
    void split(SplitText text, int from, int to, IntList ends);
}
