package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.jacap.gguf.GgufFile;
import org.jacap.tokenizer.Tokenizer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jacap tokenize}: token ids of a text. Reads only the tokenizer from the file's metadata,
 * so it also works on vocabulary-only GGUF files.
 */
@Command(
        name = "tokenize",
        sortOptions = false,
        description = "Print the token ids of TEXT, comma-separated (no BOS unless --bos).")
final class TokenizeCommand extends HelpedCommand {

    @Option(
            names = {"-m", "--model"},
            required = true,
            paramLabel = "MODEL",
            description = "GGUF file (a vocabulary-only one will do).")
    Path model;

    @Parameters(index = "0", paramLabel = "TEXT", description = "The text to tokenize.")
    String text;

    @Option(names = "--bos", description = "Add the BOS token in front.")
    boolean bos;

    @Option(names = "--pieces", description = "Print one 'id<TAB>'piece'' line per token instead.")
    boolean pieces;

    @Option(names = "--special", description = "Parse special-token text such as <|im_end|> into its token.")
    boolean special;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (GgufFile file = GgufFile.open(model)) {
            Tokenizer tokenizer = Tokenizer.fromMetadata(file.metadata());
            tokenizer.warnings().forEach(w -> err.println("warning: " + w));
            SamplingOptions.check(spec, !bos || tokenizer.bosId() >= 0, "--bos: this vocabulary has no BOS token");
            int[] ids = tokenizer.encode(text, bos, special);
            if (pieces) {
                for (int id : ids) {
                    out.println(id + "\t'" + escape(tokenizer.piece(id)) + "'");
                }
            } else {
                out.println(Arrays.stream(ids).mapToObj(Integer::toString).collect(Collectors.joining(",")));
            }
        }
        return 0;
    }

    /** Keeps one token per line: control characters are shown as escapes. */
    static String escape(String piece) {
        StringBuilder sb = new StringBuilder(piece.length());
        piece.codePoints().forEach(c -> {
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", c));
                    } else {
                        sb.appendCodePoint(c);
                    }
                }
            }
        });
        return sb.toString();
    }
}
