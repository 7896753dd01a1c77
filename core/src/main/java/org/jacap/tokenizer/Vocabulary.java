package org.jacap.tokenizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFormatException;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufValue;

/**
 * The token table shared by both tokenizer kinds: texts, scores, attributes, the special ids and
 * flags from metadata, and the rules llama.cpp applies on top of them (end-of-generation tokens
 * found by name, control-looking tokens forced to control, Phi-3's right-stripping added tokens).
 */
final class Vocabulary {
    private static final String KEY = "tokenizer.ggml.";

    /** Texts llama.cpp takes as end-of-turn when {@code eot_token_id} is absent. */
    private static final List<String> EOT_NAMES = List.of(
            "<|eot_id|>",
            "<|im_end|>",
            "<|end|>",
            "<end_of_turn>",
            "<|endoftext|>",
            "<|end_of_text|>",
            "<EOT>",
            "_<EOT>",
            "[EOT]",
            "<｜end▁of▁sentence｜>",
            "<end_of_utterance>");

    /** Texts that end generation wherever they appear (llama.cpp's EOG list). */
    private static final Set<String> EOG_NAMES = Set.of(
            "<|eot_id|>",
            "<|im_end|>",
            "<|end|>",
            "<|return|>",
            "<|call|>",
            "<|flush|>",
            "<|calls|>",
            "<end_of_turn>",
            "<|endoftext|>",
            "<|eom_id|>",
            "<EOT>",
            "_<EOT>",
            "[EOT]",
            "[EOS]",
            "<|end_of_text|>",
            "<end_of_utterance>",
            "<eos>",
            "<turn|>",
            "<|tool_response>",
            "<｜end▁of▁sentence｜>");

    /** Fill-in-the-middle tokens that llama.cpp also treats as end of generation. */
    private static final List<String> FIM_PAD_NAMES =
            List.of("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]");

    private static final List<String> FIM_REP_NAMES =
            List.of("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>");
    private static final List<String> FIM_SEP_NAMES = List.of("<|file_sep|>");

    final String[] texts;
    final float[] scores;
    final int[] attrs;
    final TokenIndex index;
    final int bosId;
    final int eosId;
    final int eotId;
    final int eomId;
    final int unknownId;
    final boolean addBos;
    final boolean addEos;
    final boolean addSpacePrefix;
    final boolean cleanSpaces;
    /** Control, user-defined and unknown tokens, longest text first: the order they are split out of text. */
    final int[] specialTokens;

    private final boolean[] endOfGeneration;
    private final List<String> warnings;

    Vocabulary(GgufMetadata meta, VocabularyDefaults defaults, List<String> warnings) {
        this.warnings = warnings;
        try {
            texts = meta.getStringArray(KEY + "tokens");
            int n = texts.length;
            if (n == 0) {
                throw new JacapException("tokenizer: '" + KEY + "tokens' is empty");
            }
            scores = meta.contains(KEY + "scores") ? meta.getFloatArray(KEY + "scores") : new float[n];
            if (scores.length != n) { // a longer array is as inconsistent as a shorter one
                throw new JacapException("tokenizer: " + scores.length + " scores for " + n + " tokens");
            }
            attrs = new int[n];
            if (meta.contains(KEY + "token_type")) {
                int[] types = meta.getIntArray(KEY + "token_type");
                if (types.length != n) {
                    throw new JacapException("tokenizer: " + types.length + " token types for " + n + " tokens");
                }
                for (int i = 0; i < n; i++) {
                    attrs[i] = TokenAttributes.fromGgufType(types[i]);
                }
            } else {
                Arrays.fill(attrs, TokenAttributes.NORMAL);
            }
            for (int i = 0; i < n; i++) {
                if (texts[i].isEmpty()) {
                    texts[i] = "[EMPTY_" + i + "]"; // as llama.cpp: every token needs a distinct text
                }
            }
            index = new TokenIndex(texts);
            int duplicates = index.duplicates();
            if (duplicates > 0) {
                warnings.add(duplicates + " duplicated token texts; the lowest id of each is used when encoding");
            }

            bosId = specialId(meta, "bos_token_id", defaults.bosId());
            eosId = specialId(meta, "eos_token_id", defaults.eosId());
            unknownId = specialId(meta, "unknown_token_id", defaults.unknownId());
            int eot = specialId(meta, "eot_token_id", -1);
            int eom = specialId(meta, "eom_token_id", -1);
            int fimPad = specialId(meta, "fim_pad_token_id", -1);
            int fimRep = specialId(meta, "fim_rep_token_id", -1);
            int fimSep = specialId(meta, "fim_sep_token_id", -1);
            addBos = meta.getBoolean(KEY + "add_bos_token", defaults.addBos());
            addEos = meta.getBoolean(KEY + "add_eos_token", defaults.addEos());
            addSpacePrefix = meta.getBoolean(KEY + "add_space_prefix", defaults.addSpacePrefix());
            cleanSpaces = defaults.cleanSpaces();
            if (addBos && bosId < 0) {
                throw new JacapException("tokenizer: add_bos_token is true, but bos_token_id is not set");
            }

            // Token texts that mark the end of a turn, found by name like llama.cpp does.
            if (eot < 0) {
                eot = findByName(EOT_NAMES);
            }
            if (eom < 0) {
                eom = findByName(List.of("<|eom_id|>"));
            }
            if (fimPad < 0) {
                fimPad = findByName(FIM_PAD_NAMES);
            }
            if (fimRep < 0) {
                fimRep = findByName(FIM_REP_NAMES);
            }
            if (fimSep < 0) {
                fimSep = findByName(FIM_SEP_NAMES);
            }
            for (int id : new int[] {eot, eom, fimPad, fimRep, fimSep}) {
                forceControl(id);
            }
            eotId = eot;
            eomId = eom;

            endOfGeneration = new boolean[n];
            for (int id : new int[] {fimPad, fimRep, fimSep, eosId, eotId, eomId}) {
                if (id >= 0) {
                    endOfGeneration[id] = true;
                }
            }
            for (int i = 0; i < n; i++) {
                if (EOG_NAMES.contains(texts[i])) {
                    endOfGeneration[i] = true;
                    forceControl(i);
                }
                if (texts[i].equals("<|channel|>")
                        || texts[i].equals("<|message|>")
                        || texts[i].equals("<|start|>")
                        || texts[i].equals("<|constrain|>")) {
                    attrs[i] = TokenAttributes.USER_DEFINED; // gpt-oss: always rendered
                }
            }
            // o200k_harmony and solar-open end turns with <|return|>/<|call|>; their <|end|> is not EOG.
            int end = index.get("<|end|>");
            if (end >= 0
                    && endOfGeneration[end]
                    && ((isEog("<|return|>") && isEog("<|call|>")) || (isEog("<|calls|>") && isEog("<|flush|>")))) {
                endOfGeneration[end] = false;
                attrs[end] = TokenAttributes.USER_DEFINED;
            }

            specialTokens = collectSpecialTokens();
            applyModelQuirks(meta.getString("general.name", ""));
        } catch (GgufFormatException e) {
            throw new JacapException("tokenizer: " + e.getMessage(), e);
        }
    }

    int size() {
        return texts.length;
    }

    boolean isEndOfGeneration(int id) {
        return id >= 0 && id < endOfGeneration.length && endOfGeneration[id];
    }

    boolean has(int id, int attr) {
        return (attrs[id] & attr) != 0;
    }

    List<String> warnings() {
        return warnings;
    }

    private boolean isEog(String text) {
        int id = index.get(text);
        return id >= 0 && endOfGeneration[id];
    }

    private int findByName(List<String> names) {
        for (String name : names) {
            int id = index.get(name);
            if (id >= 0) {
                return id;
            }
        }
        return -1;
    }

    private void forceControl(int id) {
        if (id >= 0) {
            attrs[id] |= TokenAttributes.CONTROL;
        }
    }

    private int specialId(GgufMetadata meta, String key, int defaultId) {
        int n = texts.length;
        int id = defaultId >= 0 && defaultId < n ? defaultId : -1;
        Optional<GgufValue> value = meta.get(KEY + key);
        if (value.isEmpty()) {
            return id;
        }
        if (!(value.get() instanceof GgufValue.IntValue v)) {
            throw new JacapException("tokenizer: metadata key '" + KEY + key + "' is not an integer");
        }
        if (v.value() < 0 || v.value() >= n) {
            // e.g. 0xFFFFFFFF for "none", as llama2.c conversions write
            warnings.add("ignored " + KEY + key + " = " + Long.toUnsignedString(v.value()) + " (vocabulary has " + n
                    + " tokens)");
            return id;
        }
        return (int) v.value();
    }

    private int[] collectSpecialTokens() {
        int mask = TokenAttributes.CONTROL | TokenAttributes.USER_DEFINED | TokenAttributes.UNKNOWN;
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            if ((attrs[i] & mask) != 0) {
                ids.add(i);
            }
        }
        ids.sort(Comparator.<Integer>comparingInt(i -> -texts[i].length()).thenComparingInt(i -> i));
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    // llama.cpp sets per-token strip flags by model name; Phi-3's added tokens swallow the whitespace after them.
    private void applyModelQuirks(String modelName) {
        String name = modelName.toLowerCase(Locale.ROOT);
        if (name.contains("phi-3") || name.contains("phi3")) {
            for (int id : specialTokens) {
                attrs[id] |= TokenAttributes.RSTRIP;
            }
            setStrip("</s>", true);
            for (String t : List.of("<unk>", "<s>", "<|endoftext|>")) {
                setStrip(t, false);
            }
        }
    }

    private void setStrip(String text, boolean on) {
        int id = index.get(text);
        if (id >= 0) {
            attrs[id] = on ? attrs[id] | TokenAttributes.RSTRIP : attrs[id] & ~TokenAttributes.RSTRIP;
        }
    }
}
