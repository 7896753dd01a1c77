package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jacap pull} against a local HTTP server on 127.0.0.1 that honours range requests. */
class PullCommandTest {
    private static final byte[] MODEL = model(200_000);

    @TempDir
    Path dir;

    private HttpServer server;
    private final List<String> ranges = new ArrayList<>(); // the Range header of each request ("" for none)
    private volatile int cutAfter = -1; // > 0: the next full response stops after this many bytes
    private volatile boolean ignoreRanges;
    private volatile String etag;

    private static byte[] model(int size) {
        byte[] b = new byte[size];
        new Random(5).nextBytes(b);
        System.arraycopy("GGUF".getBytes(StandardCharsets.US_ASCII), 0, b, 0, 4);
        return b;
    }

    private static String sha(byte[] b) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/m/model.gguf", this::serveModel);
        server.createContext("/owner/repo/resolve/main/tiny.gguf", this::serveModel);
        server.createContext(
                "/page.gguf", x -> send(x, 200, "<html>not found</html>".getBytes(StandardCharsets.UTF_8)));
        server.createContext("/missing.gguf", x -> send(x, 404, new byte[0]));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private void serveModel(HttpExchange x) throws IOException {
        String range = x.getRequestHeaders().getFirst("Range");
        synchronized (ranges) {
            ranges.add(range == null ? "" : range);
        }
        if (etag != null) {
            x.getResponseHeaders().add("ETag", "\"" + etag + "\"");
        }
        if (range != null && !ignoreRanges) {
            int from = Integer.parseInt(range.substring("bytes=".length(), range.length() - 1));
            if (from >= MODEL.length) {
                send(x, 416, new byte[0]);
                return;
            }
            x.getResponseHeaders()
                    .add("Content-Range", "bytes " + from + "-" + (MODEL.length - 1) + "/" + MODEL.length);
            send(x, 206, Arrays.copyOfRange(MODEL, from, MODEL.length));
            return;
        }
        int cut = cutAfter;
        if (cut > 0) { // announce the whole file, send part of it, drop the connection
            cutAfter = -1;
            x.sendResponseHeaders(200, MODEL.length);
            OutputStream out = x.getResponseBody();
            out.write(MODEL, 0, cut);
            out.flush();
            try {
                Thread.sleep(200); // let the bytes reach the client before the connection drops
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.close();
            return;
        }
        send(x, 200, MODEL);
    }

    private static void send(HttpExchange x, int status, byte[] body) throws IOException {
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        }
        x.close();
    }

    @Test
    void downloadsIntoTheFolderAndPrintsTheSha() throws Exception {
        CliRun r = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString(), "--sha256", sha(MODEL));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(dir.resolve("model.gguf")).hasBinaryContent(MODEL);
        assertThat(dir.resolve("model.gguf.part")).doesNotExist();
        assertThat(r.out().strip()).isEqualTo(sha(MODEL) + "  " + dir.resolve("model.gguf"));
        assertThat(r.err()).contains("200000 bytes fetched; sha256 verified");

        CliRun again = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString());
        assertThat(again.code()).isZero();
        assertThat(again.err()).contains("already downloaded: ");
        assertThat(ranges).hasSize(1); // nothing fetched the second time
    }

    @Test
    void anInterruptedDownloadResumesWithARangeRequest() throws Exception {
        cutAfter = 70_000;
        CliRun first = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString());
        assertThat(first.code()).isEqualTo(1);
        String message = first.errLines()[first.errLines().length - 1];
        // how much arrives before the dropped connection is the network's business: at most what was sent
        var m = java.util.regex.Pattern.compile(
                        "jacap: download interrupted after (\\d+) of 200000 bytes .*; run the same command again to resume")
                .matcher(message);
        assertThat(m.matches()).as(message).isTrue();
        long got = Long.parseLong(m.group(1));
        assertThat(got).isBetween(4L, 70_000L);
        assertThat(dir.resolve("model.gguf.part")).hasSize(got);

        etag = sha(MODEL); // as Hugging Face publishes it
        CliRun second = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString());
        assertThat(second.code()).as(second.err()).isZero();
        assertThat(ranges).containsExactly("", "bytes=" + got + "-");
        assertThat(second.err()).contains("resumed: " + (200_000 - got) + " bytes fetched; sha256 verified");
        assertThat(dir.resolve("model.gguf")).hasBinaryContent(MODEL);
    }

    @Test
    void aServerThatIgnoresTheRangeStartsOver() throws Exception {
        Files.write(dir.resolve("model.gguf.part"), Arrays.copyOf(MODEL, 1000));
        ignoreRanges = true;
        CliRun r = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString(), "--sha256", sha(MODEL));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(dir.resolve("model.gguf")).hasBinaryContent(MODEL);
    }

    @Test
    void hfSourcesResolveToTheRepositoryFile() throws Exception {
        CliRun r = CliRun.of("pull", "hf://owner/repo/tiny.gguf", "--hf-endpoint", url(""), "--dir", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(dir.resolve("tiny.gguf")).hasBinaryContent(MODEL);
        assertThat(r.err()).contains("not verified (pass --sha256 HEX to check)");
    }

    @Test
    void aWrongShaRemovesTheDownload() {
        CliRun r = CliRun.of("pull", url("/m/model.gguf"), "--dir", dir.toString(), "--sha256", "0".repeat(64));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()[r.errLines().length - 1])
                .startsWith("jacap: sha256 mismatch for " + url("/m/model.gguf") + ": expected " + "0".repeat(64))
                .endsWith("(the download was removed)");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aFileThatIsNotGgufIsRefused() {
        CliRun r = CliRun.of("pull", url("/page.gguf"), "--dir", dir.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()[r.errLines().length - 1])
                .isEqualTo("jacap: " + url("/page.gguf")
                        + " is not a GGUF file (it does not start with 'GGUF'); nothing was kept");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void badSourcesAndServerErrorsAreOneLine() {
        String[] missing =
                CliRun.of("pull", url("/missing.gguf"), "--dir", dir.toString()).errLines();
        assertThat(missing[missing.length - 1])
                .isEqualTo("jacap: download failed: HTTP 404 for " + url("/missing.gguf"));
        assertThat(CliRun.of("pull", "ftp://x/y.gguf", "--dir", dir.toString()).errLines())
                .singleElement()
                .isEqualTo("jacap: cannot pull 'ftp://x/y.gguf': give an http(s) URL or hf://OWNER/REPO/FILE.gguf");
        assertThat(CliRun.of("pull", "hf://owner/repo", "--dir", dir.toString()).errLines())
                .singleElement()
                .isEqualTo("jacap: a Hugging Face source is hf://OWNER/REPO/FILE.gguf (got hf://owner/repo)");
        CliRun sha = CliRun.of("pull", url("/m/model.gguf"), "--sha256", "abc");
        assertThat(sha.code()).isEqualTo(1);
        assertThat(sha.errLines()[0]).startsWith("jacap: --sha256 needs 64 hex digits (got 'abc')");
    }
}
