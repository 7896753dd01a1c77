package org.jacap.tokenizer;

/**
 * Unicode category flags of a code point, as llama.cpp's unicode tables define them: one general
 * category bit (letter, number, punctuation, ...) plus the White_Space property. The pre-tokenizers
 * use these instead of {@link Character} predicates so that they split text exactly as llama.cpp does.
 */
final class CodepointFlags {
    static final int UNDEFINED = 0x0001;
    static final int NUMBER = 0x0002;
    static final int LETTER = 0x0004;
    static final int SEPARATOR = 0x0008;
    static final int ACCENT_MARK = 0x0010;
    static final int PUNCTUATION = 0x0020;
    static final int SYMBOL = 0x0040;
    static final int CONTROL = 0x0080;
    static final int CATEGORY_MASK = 0x00FF;
    static final int WHITESPACE = 0x0100;

    private CodepointFlags() {}

    /** Flags of {@code cp}; never 0 for a valid code point (0 means "outside the fragment"). */
    static int of(int cp) {
        int category = switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER,
                    Character.LOWERCASE_LETTER,
                    Character.TITLECASE_LETTER,
                    Character.MODIFIER_LETTER,
                    Character.OTHER_LETTER -> LETTER;
            case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK -> ACCENT_MARK;
            case Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER -> NUMBER;
            case Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> SEPARATOR;
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE -> CONTROL;
            case Character.CONNECTOR_PUNCTUATION,
                    Character.DASH_PUNCTUATION,
                    Character.START_PUNCTUATION,
                    Character.END_PUNCTUATION,
                    Character.INITIAL_QUOTE_PUNCTUATION,
                    Character.FINAL_QUOTE_PUNCTUATION,
                    Character.OTHER_PUNCTUATION -> PUNCTUATION;
            case Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL, Character.MODIFIER_SYMBOL, Character.OTHER_SYMBOL ->
                SYMBOL;
            default -> UNDEFINED;
        };
        return isWhitespace(cp) ? category | WHITESPACE : category;
    }

    /** The Unicode White_Space property (what llama.cpp and Python's {@code \s} call whitespace). */
    static boolean isWhitespace(int cp) {
        return (cp >= 0x09 && cp <= 0x0D)
                || cp == 0x20
                || cp == 0x85
                || cp == 0xA0
                || cp == 0x1680
                || (cp >= 0x2000 && cp <= 0x200A)
                || cp == 0x2028
                || cp == 0x2029
                || cp == 0x202F
                || cp == 0x205F
                || cp == 0x3000;
    }

    static boolean isLetter(int flags) {
        return (flags & LETTER) != 0;
    }

    static boolean isNumber(int flags) {
        return (flags & NUMBER) != 0;
    }

    static boolean isSpace(int flags) {
        return (flags & WHITESPACE) != 0;
    }
}
