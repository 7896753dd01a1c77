package org.jacap.cli;

import java.util.Locale;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.KvStorage;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** llama.cpp's KV storage flags {@code --cache-type-k/-ctk} and {@code --cache-type-v/-ctv}: run, chat, eval, bench. */
final class CacheTypeOptions {

    @Option(
            names = {"-ctk", "--cache-type-k"},
            paramLabel = "f32|f16|q8_0",
            description = "How the KV cache stores keys (default: ${DEFAULT-VALUE}).")
    String keys;

    @Option(
            names = {"-ctv", "--cache-type-v"},
            paramLabel = "f32|f16|q8_0",
            description = "How the KV cache stores values (default: ${DEFAULT-VALUE}).")
    String values;

    /** f16 keys and values, llama.cpp's default. */
    CacheTypeOptions() {
        this("f16");
    }

    /** Both types defaulting to {@code type} (eval compares with an f32 reference and defaults to f32). */
    CacheTypeOptions(String type) {
        this.keys = type;
        this.values = type;
    }

    /** The chosen types; an unknown name is one line naming the flag. */
    KvCacheTypes types(CommandSpec spec) {
        return new KvCacheTypes(parse(spec, "--cache-type-k", keys), parse(spec, "--cache-type-v", values));
    }

    static KvStorage parse(CommandSpec spec, String flag, String text) {
        for (KvStorage s : KvStorage.values()) {
            if (s.label().equals(text.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new ParameterException(
                spec.commandLine(), flag + ": unknown KV cache type '" + text + "' (f32, f16 or q8_0)");
    }
}
