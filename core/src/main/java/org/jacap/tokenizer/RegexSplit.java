package org.jacap.tokenizer;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pre-tokenizer regex run the way llama.cpp runs it with {@code std::regex}. A regex that uses
 * Unicode categories ({@code \p{L}} ...) is rewritten to match llama.cpp's collapsed text: each
 * category becomes its stand-in character plus its ASCII members, as llama.cpp's tables list them
 * (so, e.g., {@code ~} is neither punctuation nor symbol there). Other regexes run on the plain
 * text. Matches and the text between them both become words.
 */
final class RegexSplit implements SplitRule {
    private static final List<String> LETTER_CLASSES = List.of("L", "Lu", "Ll", "Lt", "Lm", "Lo");

    private final String source;
    private final Pattern pattern;
    private final boolean collapsed;

    /**
     * {@code regex} is the expression as llama.cpp lists it; the syntax it uses means the same in
     * {@code java.util.regex}, except an end anchor, which must be written {@code \z} here.
     */
    RegexSplit(String regex) {
        this.source = regex;
        this.collapsed = usesCategories(regex);
        this.pattern = Pattern.compile(collapsed ? collapse(regex) : regex);
    }

    String source() {
        return source;
    }

    @Override
    public void split(SplitText text, int from, int to, IntList ends) {
        String s = collapsed ? text.collapsed() : text.plain();
        int start = collapsed ? from : text.plainIndex(from);
        int end = collapsed ? to : text.plainIndex(to);
        Matcher m = pattern.matcher(s);
        m.region(start, end); // anchoring bounds: '$' and lookaheads stop at the fragment end, as with std::regex
        int previous = from;
        while (m.find()) {
            if (m.end() == m.start()) {
                continue;
            }
            int ms = collapsed ? m.start() : text.cpIndex(m.start());
            int me = collapsed ? m.end() : text.cpIndex(m.end());
            if (ms > previous) {
                ends.add(ms);
            }
            ends.add(me);
            previous = me;
        }
        if (previous < to) {
            ends.add(to);
        }
    }

    private static boolean usesCategories(String regex) {
        for (String c : List.of(
                "\\p{N}", "\\p{L}", "\\p{P}", "\\p{M}", "\\p{S}", "\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\p{Lm}",
                "\\p{Lo}")) {
            if (regex.contains(c)) {
                return true;
            }
        }
        return false;
    }

    /** llama.cpp's regex rewrite for the collapsed text: {@code \p{X}} → {@code [<stand-in><ASCII members>]}. */
    static String collapse(String regex) {
        if (regex.codePoints().anyMatch(c -> c >= 128)) {
            throw new IllegalArgumentException("a regex with Unicode categories must be ASCII: " + regex);
        }
        StringBuilder out = new StringBuilder(regex.length() * 2);
        boolean inside = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '[' && (i == 0 || regex.charAt(i - 1) != '\\')) {
                out.append('[');
                inside = true;
                continue;
            }
            if (inside && c == ']' && regex.charAt(i - 1) != '\\') {
                out.append(']');
                inside = false;
                continue;
            }
            if (c == '\\' && i + 3 < regex.length() && regex.charAt(i + 1) == 'p' && regex.charAt(i + 2) == '{') {
                int close = regex.indexOf('}', i + 3);
                String members = close > 0 ? members(regex.substring(i + 3, close)) : null;
                if (members != null) {
                    out.append(inside ? members : "[" + members + "]");
                    i = close;
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }

    // The stand-in character and the ASCII code points of each category in llama.cpp's tables.
    private static String members(String category) {
        if (LETTER_CLASSES.contains(category)) {
            return SplitText.LETTER + "A-Za-z";
        }
        return switch (category) {
            case "N" -> SplitText.NUMBER + "0-9";
            case "P" -> SplitText.PUNCTUATION + "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}";
            case "M" -> String.valueOf(SplitText.ACCENT_MARK);
            case "S" -> SplitText.SYMBOL + "\\$\\+<->^`\\|";
            default -> null;
        };
    }
}
