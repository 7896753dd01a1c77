package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jacap.bench.progress.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code jacap pull}: downloads a GGUF model into the model cache, resumably and checked. */
@Command(
        name = "pull",
        sortOptions = false,
        description = {
            "Download a GGUF model into ~/.cache/jacap/models (resumes an interrupted download, checks the sha256).",
            "SOURCE is an http(s) URL or hf://OWNER/REPO/FILE.gguf (a Hugging Face repository, main branch;"
                    + " hf://OWNER/REPO@REV/FILE for another revision)."
        })
final class PullCommand extends HelpedCommand {

    @Parameters(index = "0", paramLabel = "SOURCE", description = "URL or hf://OWNER/REPO/FILE.gguf")
    String source;

    @Option(
            names = "--sha256",
            paramLabel = "HEX",
            description = "Expected sha256 of the file (default: the server's, when it publishes one).")
    String sha256;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "Folder to download into (default: ~/.cache/jacap/models).")
    Path dir;

    @Option(
            names = "--hf-endpoint",
            paramLabel = "URL",
            description = "Where hf:// sources live (default: ${DEFAULT-VALUE}).")
    String hfEndpoint = "https://huggingface.co";

    @Override
    public Integer call() throws IOException, InterruptedException {
        SamplingOptions.check(
                spec,
                sha256 == null || sha256.toLowerCase(Locale.ROOT).matches("[0-9a-f]{64}"),
                "--sha256 needs 64 hex digits (got '" + sha256 + "')");
        ModelSource from = ModelSource.parse(source, hfEndpoint);
        Path folder = dir != null ? dir : CacheDirectory.defaultPath().resolve("models");
        Files.createDirectories(folder);
        Path target = folder.resolve(from.fileName());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (Files.exists(target)) {
            String sha = Download.sha256(target);
            if (sha256 != null && !sha.equals(sha256.toLowerCase(Locale.ROOT))) {
                throw new org.jacap.JacapException(target + " is already there but its sha256 is " + sha + ", not "
                        + sha256 + "; remove it to download again");
            }
            err.println("already downloaded: " + target);
            out.println(sha + "  " + target);
            return 0;
        }
        ProgressBar bar = new ProgressBar(err, "pull " + from.fileName(), Terminal.interactive());
        err.println("downloading " + from.uri() + " -> " + target);
        err.flush();
        Download.Result r;
        try {
            r = new Download().fetch(from, target, sha256, bar);
        } finally {
            bar.finish();
        }
        err.println((r.resumed() ? "resumed: " : "") + r.fetched() + " bytes fetched; "
                + (r.verified()
                        ? "sha256 verified"
                        : "the server publishes no sha256: not verified (pass --sha256 HEX to check)"));
        out.println(r.sha256() + "  " + r.file());
        return 0;
    }
}
