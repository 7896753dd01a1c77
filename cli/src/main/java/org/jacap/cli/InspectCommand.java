package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code jacap inspect MODEL.gguf}: what a GGUF file holds, in the spirit of llama.cpp's gguf-dump. */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = {
            "Show what a GGUF file holds (like llama.cpp's gguf-dump).",
            "Prints the file facts, a model summary (architecture, parameters, quantization mix, shape, tokenizer), "
                    + "every metadata key with its type and value (long values abbreviated) and the tensor table."
        })
final class InspectCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MODEL.gguf", description = "the GGUF file to inspect")
    Path model;

    @Option(names = "--no-tensors", description = "leave out the tensor table")
    boolean noTensors;

    @Option(names = "--no-metadata", description = "leave out the metadata keys")
    boolean noMetadata;

    @Option(names = "--json", description = "machine-readable output, every value in full")
    boolean json;

    @Option(
            names = "--key",
            paramLabel = "KEY",
            description =
                    "print only this metadata key's value, in full (arrays one element per line; with --json as JSON)")
    String key;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        try (GgufFile file = GgufFile.open(model)) {
            String shown = model.toString();
            if (key != null) {
                out.print(keyValue(file));
            } else if (json) {
                out.print(InspectJson.render(file, shown, !noMetadata, !noTensors));
            } else {
                out.print(InspectReport.render(file, shown, !noMetadata, !noTensors));
            }
        }
        out.flush();
        return 0;
    }

    private String keyValue(GgufFile file) {
        GgufValue v = file.metadata()
                .get(key)
                .orElseThrow(() -> new JacapException("no metadata key '" + ValueText.escaped(key) + "' in " + model));
        if (json) {
            return Json.write(InspectJson.value(v));
        }
        if (v instanceof GgufValue.ArrayValue a) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < a.length(); i++) {
                String e = a.elementType() == org.jacap.gguf.GgufValueType.STRING
                        ? ValueText.escaped(a.strings()[i])
                        : ValueText.element(a, i, Integer.MAX_VALUE);
                sb.append(e).append('\n');
            }
            return sb.toString();
        }
        return ValueText.scalar(v) + "\n"; // strings as they are: a chat template prints as its lines
    }
}
