package org.jacap.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jacap.JacapException;
import org.jacap.bench.progress.Progress;

/**
 * One model download: into {@code FILE.part} beside the target (resumed with a range request
 * when it is already there), refused unless it starts with the GGUF magic, checked against a
 * sha256 (the one given, else the server's when it publishes one, as Hugging Face does in its
 * ETag), then renamed into place.
 */
final class Download {
    private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** What came of it: the file, its sha256, bytes fetched now, whether a part was resumed, whether a known sha256 matched. */
    record Result(Path file, String sha256, long fetched, boolean resumed, boolean verified) {}

    private final HttpClient client;

    Download() {
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    Result fetch(ModelSource source, Path target, String expectedSha, Progress progress)
            throws IOException, InterruptedException {
        Path part = target.resolveSibling(target.getFileName() + ".part");
        long have = Files.exists(part) ? Files.size(part) : 0;
        HttpRequest.Builder request = HttpRequest.newBuilder(source.uri())
                .header("User-Agent", "jacap")
                .timeout(Duration.ofMinutes(2));
        if (have > 0) {
            request.header("Range", "bytes=" + have + "-");
        }
        HttpResponse<InputStream> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (ConnectException e) {
            throw new JacapException("cannot connect to " + source.uri().getHost() + " (" + source.uri() + ")");
        }
        int status = response.statusCode();
        boolean resumed = have > 0 && status == 206;
        long total;
        try (InputStream body = response.body()) {
            if (status == 416 && have > 0) { // the part is already whole
                total = have;
            } else if (status == 200 || status == 206) {
                if (!resumed) {
                    have = 0; // the server sent the whole file: start over
                }
                long length =
                        response.headers().firstValueAsLong("Content-Length").orElse(-1);
                total = length < 0 ? -1 : have + length;
                copy(body, part, resumed, have, total, source, progress);
            } else {
                throw new JacapException("download failed: HTTP " + status + " for " + source.uri()
                        + (status == 401 || status == 403 ? " (the file may need a login or be gated)" : ""));
            }
        }
        checkMagic(part, source);
        String sha = sha256(part);
        String expected = expectedSha != null
                ? expectedSha.toLowerCase(Locale.ROOT)
                : serverSha(response).orElse(null);
        if (expected != null && !expected.equals(sha)) {
            Files.delete(part);
            throw new JacapException("sha256 mismatch for " + source.uri() + ": expected " + expected + ", got " + sha
                    + " (the download was removed)");
        }
        Files.move(part, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return new Result(target, sha, Files.size(target) - (resumed ? have : 0), resumed, expected != null);
    }

    private static void copy(
            InputStream body, Path part, boolean append, long have, long total, ModelSource source, Progress progress)
            throws IOException {
        long done = have;
        boolean checked = have >= MAGIC.length;
        try (OutputStream out = Files.newOutputStream(
                part,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = body.read(buf)) >= 0) {
                out.write(buf, 0, n);
                done += n;
                if (!checked && done >= MAGIC.length) {
                    out.flush();
                    checkMagic(part, source); // an HTML error page must not be downloaded in full
                    checked = true;
                }
                progress.update(done, total, "");
            }
        } catch (IOException e) {
            if (!Files.exists(part)) {
                throw e;
            }
            throw new JacapException("download interrupted after " + done + (total > 0 ? " of " + total : "")
                    + " bytes (" + e.getMessage() + "); run the same command again to resume");
        }
        if (total > 0 && done < total) {
            throw new JacapException("download interrupted after " + done + " of " + total
                    + " bytes; run the same command again to resume");
        }
    }

    private static void checkMagic(Path part, ModelSource source) throws IOException {
        byte[] head = new byte[MAGIC.length];
        int n;
        try (InputStream in = Files.newInputStream(part)) {
            n = in.readNBytes(head, 0, head.length);
        }
        if (n < MAGIC.length || !java.util.Arrays.equals(head, MAGIC)) {
            Files.deleteIfExists(part);
            throw new JacapException(
                    source.uri() + " is not a GGUF file (it does not start with 'GGUF'); nothing" + " was kept");
        }
    }

    /** A sha256 the server publishes: Hugging Face's X-Linked-Etag / ETag of an LFS file. */
    private static Optional<String> serverSha(HttpResponse<?> response) {
        // the redirect from the repository carries it too (X-Linked-Etag), so look along the chain
        for (HttpResponse<?> r = response; r != null; r = r.previousResponse().orElse(null)) {
            for (String name : new String[] {"X-Linked-Etag", "ETag"}) {
                Optional<String> v = r.headers()
                        .firstValue(name)
                        .map(s -> s.replace("W/", "").replace("\"", "").toLowerCase(Locale.ROOT));
                if (v.isPresent() && SHA256.matcher(v.get()).matches()) {
                    return v;
                }
            }
        }
        return Optional.empty();
    }

    static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
