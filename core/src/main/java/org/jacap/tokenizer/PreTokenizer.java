package org.jacap.tokenizer;

import java.util.List;

/**
 * A byte-level BPE pre-tokenizer: the split rules applied one after the other (each splits the
 * words the previous one produced), chosen by {@code tokenizer.ggml.pre} exactly as llama.cpp's
 * {@code llm_tokenizer_bpe} lists them, with the vocabulary flags that come with each choice.
 *
 * @param name          the pre-tokenizer this preset implements ("default" for unknown names)
 * @param rules         split rules, applied in order
 * @param ignoreMerges  a word that is itself a token is emitted whole (Llama 3, tiktoken-style)
 * @param addBos        llama.cpp's add_bos default for this pre-tokenizer
 * @param cleanSpaces   whether detokenizing applies clean_up_tokenization_spaces
 */
record PreTokenizer(String name, List<SplitRule> rules, boolean ignoreMerges, boolean addBos, boolean cleanSpaces) {

    private static final String CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
    private static final String QWEN2 = CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    private static final String SEED_CODER = CONTRACTIONS
            + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    // Mixed-case words without (?i): an uppercase run then lowercase letters, or the reverse.
    private static final String TEKKEN = "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+"
            + "|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*"
            + "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    private static final String GPT4O =
            "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+" + CONTRACTIONS + "?"
                    + "|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*" + CONTRACTIONS + "?"
                    + "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    /** DeepSeek LLM's explicit list of cased letters (Lu, Ll, Lt ranges). */
    private static final String DEEPSEEK_LETTERS =
            "A-Za-z\\x{B5}\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{1BA}\\x{1BC}-\\x{1BF}"
                    + "\\x{1C4}-\\x{293}\\x{295}-\\x{2AF}\\x{370}-\\x{373}\\x{376}\\x{377}\\x{37B}-\\x{37D}"
                    + "\\x{37F}\\x{386}\\x{388}-\\x{38A}\\x{38C}\\x{38E}-\\x{3A1}\\x{3A3}-\\x{3F5}"
                    + "\\x{3F7}-\\x{481}\\x{48A}-\\x{52F}\\x{531}-\\x{556}\\x{10A0}-\\x{10C5}"
                    + "\\x{13A0}-\\x{13F5}\\x{13F8}-\\x{13FD}\\x{1C90}-\\x{1CBA}\\x{1CBD}-\\x{1CBF}"
                    + "\\x{1D00}-\\x{1D2B}\\x{1D6B}-\\x{1D77}\\x{1D79}-\\x{1D9A}\\x{1E00}-\\x{1F15}"
                    + "\\x{1F18}-\\x{1F1D}\\x{1F20}-\\x{1F45}\\x{1F48}-\\x{1F4D}\\x{1F50}-\\x{1F57}"
                    + "\\x{1F59}\\x{1F5B}\\x{1F5D}\\x{1F5F}-\\x{1F7D}\\x{1F80}-\\x{1FB4}\\x{1FB6}-\\x{1FBC}"
                    + "\\x{1FBE}\\x{1FC2}-\\x{1FC4}\\x{1FC6}-\\x{1FCC}\\x{1FD0}-\\x{1FD3}"
                    + "\\x{1FD6}-\\x{1FDB}\\x{1FE0}-\\x{1FEC}\\x{1FF2}-\\x{1FF4}\\x{1FF6}-\\x{1FFC}"
                    + "\\x{2102}\\x{2107}\\x{210A}-\\x{2113}\\x{2115}\\x{2119}-\\x{211D}\\x{2124}\\x{2126}"
                    + "\\x{2128}\\x{212A}-\\x{212D}\\x{212F}-\\x{2134}\\x{2139}\\x{213C}-\\x{213F}"
                    + "\\x{2145}-\\x{2149}\\x{214E}\\x{2183}\\x{2184}\\x{2C00}-\\x{2C7B}\\x{2C7E}-\\x{2CE4}"
                    + "\\x{2CEB}-\\x{2CEE}\\x{2CF2}\\x{2CF3}\\x{A640}-\\x{A66D}\\x{A680}-\\x{A69B}"
                    + "\\x{A722}-\\x{A76F}\\x{A771}-\\x{A787}\\x{A78B}-\\x{A78E}\\x{AB70}-\\x{ABBF}"
                    + "\\x{FB00}-\\x{FB06}\\x{FB13}-\\x{FB17}\\x{FF21}-\\x{FF3A}\\x{FF41}-\\x{FF5A}"
                    + "\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}\\x{104D8}-\\x{104FB}\\x{10C80}-\\x{10CB2}"
                    + "\\x{10CC0}-\\x{10CF2}\\x{118A0}-\\x{118DF}\\x{1E900}-\\x{1E943}";

    private static final String CJK = "[\\x{4E00}-\\x{9FA5}\\x{800}-\\x{4E00}\\x{AC00}-\\x{D7FF}]+";
    private static final String BLOOM = " ?[^(\\s|.,!?\\x{2026}\\x{3002}\\x{FF0C}\\x{3001}\\x{964}\\x{6D4}\\x{60C})]+";

    private static List<SplitRule> gpt2() {
        return List.of(new Gpt2Split());
    }

    private static List<SplitRule> llama3() {
        return List.of(new Llama3Split());
    }

    private static List<SplitRule> regexes(String... regexes) {
        return java.util.Arrays.stream(regexes).<SplitRule>map(RegexSplit::new).toList();
    }

    /** The pre-tokenizer llama.cpp uses for {@code tokenizer.ggml.pre}; unknown or missing names fall back to "default". */
    static PreTokenizer forName(String pre, List<String> warnings) {
        if (pre == null || pre.isEmpty()) {
            warnings.add(
                    "missing tokenizer.ggml.pre: using the 'default' pre-tokenizer; generation quality may be degraded");
            return defaultPreset();
        }
        return switch (pre) {
            case "default" -> defaultPreset();
            case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2" ->
                new PreTokenizer(pre, llama3(), true, true, true);
            case "dbrx", "smaug-bpe" -> new PreTokenizer(pre, llama3(), false, false, true);
            case "glm4", "chatglm-bpe" -> new PreTokenizer(pre, llama3(), false, false, true);
            case "gpt-2",
                    "phi-2",
                    "jina-es",
                    "jina-de",
                    "gigachat",
                    "jina-v2-es",
                    "jina-v2-de",
                    "a.x-4.0",
                    "mellum",
                    "mpt",
                    "olmo",
                    "jais",
                    "exaone4",
                    "jina-v1-en",
                    "jina-v2-code",
                    "roberta-bpe" -> new PreTokenizer(pre, gpt2(), false, false, true);
            case "trillion", "granite-docling" -> new PreTokenizer(pre, gpt2(), false, false, false);
            case "starcoder", "refact", "codeshell", "exaone", "minerva-7b" ->
                new PreTokenizer(pre, starcoder(), false, false, true);
            case "smollm", "command-r" -> new PreTokenizer(pre, starcoder(), false, false, false);
            case "qwen2", "deepseek-r1-qwen", "hunyuan", "grok-2" ->
                new PreTokenizer(pre, regexes(QWEN2), false, false, false);
            case "stablelm2", "megrez" -> new PreTokenizer(pre, regexes(QWEN2), false, false, true);
            case "deepseek-llm" ->
                new PreTokenizer(
                        pre,
                        regexes(
                                "[\r\n]",
                                "\\s?[" + DEEPSEEK_LETTERS + "]+",
                                "\\s?[!-/:-~\\x{FF01}-\\x{FF0F}\\x{FF1A}-\\x{FF5E}\\x{2018}-\\x{201F}\\x{3000}-\\x{3002}]+",
                                "\\s+\\z", // "\s+$": whitespace at the end of the fragment
                                CJK,
                                "\\p{N}+"),
                        false,
                        false,
                        false);
            case "deepseek-coder" ->
                new PreTokenizer(
                        pre, regexes("[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", CJK, "\\p{N}"), false, false, false);
            case "deepseek-v3" ->
                new PreTokenizer(
                        pre,
                        regexes(
                                "\\p{N}{1,3}",
                                "[\\x{4E00}-\\x{9FA5}\\x{3040}-\\x{309F}\\x{30A0}-\\x{30FF}]+",
                                "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
                                        + "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"),
                        false,
                        false,
                        false);
            case "falcon" ->
                new PreTokenizer(
                        pre,
                        List.of(
                                new RegexSplit("[\\p{P}\\$\\+<=>\\^~\\|`]+"),
                                new Gpt2Split(),
                                new RegexSplit("[0-9][0-9][0-9]")),
                        false,
                        false,
                        true);
            case "tekken" -> new PreTokenizer(pre, regexes(TEKKEN), true, true, false);
            case "gpt-4o", "llama4" -> new PreTokenizer(pre, regexes(GPT4O), false, false, false);
            case "seed-coder" -> new PreTokenizer(pre, regexes(SEED_CODER), false, false, false);
            case "poro-chat" -> new PreTokenizer(pre, regexes(BLOOM), false, false, false);
            case "bloom", "gpt3-finnish" -> new PreTokenizer(pre, regexes(BLOOM), false, false, true);
            case "viking" -> new PreTokenizer(pre, regexes(BLOOM, "\\p{N}"), false, false, false);
            default -> {
                warnings.add("unknown pre-tokenizer '" + pre
                        + "': using 'default'; tokenization may differ from the model's");
                yield defaultPreset();
            }
        };
    }

    private static PreTokenizer defaultPreset() {
        return new PreTokenizer(
                "default",
                List.of(
                        new RegexSplit("[\\p{P}\\$\\+<=>\\^~\\|]+"),
                        new Gpt2Split(),
                        new RegexSplit("\\p{N}+"),
                        new RegexSplit("[0-9][0-9][0-9]")),
                false,
                false,
                true);
    }

    private static List<SplitRule> starcoder() {
        return List.of(new RegexSplit("\\p{N}"), new Gpt2Split());
    }

    /** Word boundaries of {@code text}: the end index (exclusive, in code points) of each word, in order. */
    IntList split(SplitText text) {
        IntList ends = new IntList();
        ends.add(text.length());
        for (SplitRule rule : rules) {
            IntList next = new IntList(ends.size() * 2);
            int start = 0;
            for (int i = 0; i < ends.size(); i++) {
                int end = ends.get(i);
                if (end > start) {
                    rule.split(text, start, end, next);
                }
                start = end;
            }
            ends = next;
        }
        return ends;
    }
}
