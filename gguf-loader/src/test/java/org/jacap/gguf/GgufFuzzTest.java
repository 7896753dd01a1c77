package org.jacap.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Mutates small fixture files (bit flips, extreme values written into length/count/offset fields,
 * truncations, duplicated and removed regions) and checks that every outcome is either a clean
 * parse, after which every tensor slice is readable and the file re-encodes to the same content,
 * or one {@link GgufFormatException}. Seeded and bounded by a mutation count and a time budget.
 *
 * <p>Properties: {@code jacap.fuzz.seed} (base seed), {@code jacap.fuzz.mutations},
 * {@code jacap.fuzz.seconds}, and {@code jacap.fuzz.case} to rerun one failing case by its seed.
 */
class GgufFuzzTest {
    private static final long DEFAULT_SEED = 0x6A61636170L; // "jacap"
    private static final int DEFAULT_MUTATIONS = 3000;
    private static final long DEFAULT_SECONDS = 20;
    /** Arrays longer than this are cut when a vocabulary file is shrunk into the corpus. */
    private static final int VOCAB_ELEMENTS = 384;

    private static final int VOCAB_PREFIX_BYTES = 200_000;

    /** One corpus file: its bytes, where its header ends, and the fields to aim at. */
    private record Sample(String name, byte[] image, long headerEnd, List<GgufFieldMap.Field> fields) {}

    /** What happened to one mutated file. */
    private enum Outcome {
        PARSED,
        REJECTED,
        PARSED_NOT_REENCODABLE
    }

    private volatile String currentCase = "none yet";

    @Test
    void mutatedFixturesParseOrFailWithAFormatError() throws Exception {
        long seed = Long.getLong("jacap.fuzz.seed", DEFAULT_SEED);
        int mutations = Integer.getInteger("jacap.fuzz.mutations", DEFAULT_MUTATIONS);
        Duration budget = Duration.ofSeconds(Long.getLong("jacap.fuzz.seconds", DEFAULT_SECONDS));
        String only = System.getProperty("jacap.fuzz.case");
        List<Sample> corpus = corpus(Fixtures.dir());

        int[] counts = new int[Outcome.values().length];
        long start = System.nanoTime();
        int done = assertTimeoutPreemptively(
                budget.plusSeconds(120),
                () -> {
                    if (only != null) {
                        counts[runCase(corpus, parseSeed(only), -1, seed).ordinal()]++;
                        return 1;
                    }
                    long deadline = start + budget.toNanos();
                    int i = 0;
                    for (; i < mutations && System.nanoTime() < deadline; i++) {
                        counts[runCase(corpus, caseSeed(seed, i), i, seed).ordinal()]++;
                    }
                    return i;
                },
                () -> "fuzz case hung or was too slow: " + currentCase);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                "GGUF fuzz: %d mutations in %.1f s (seed %d): %d parsed, %d parsed but not re-encodable, %d rejected%n",
                done,
                seconds,
                seed,
                counts[Outcome.PARSED.ordinal()],
                counts[Outcome.PARSED_NOT_REENCODABLE.ordinal()],
                counts[Outcome.REJECTED.ordinal()]);
        assertThat(done).isPositive();
        if (only == null && done >= 500) {
            // The fuzzer must reach both outcomes, or it is not exercising the validation.
            assertThat(counts[Outcome.REJECTED.ordinal()]).isGreaterThan(done / 10);
            assertThat(counts[Outcome.PARSED.ordinal()]).isGreaterThan(done / 20);
        }
    }

    /** A case seed as printed (0x + 16 hex digits, possibly above Long.MAX_VALUE) or in decimal. */
    private static long parseSeed(String s) {
        return s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s);
    }

    private static long caseSeed(long seed, int i) {
        return new SplittableRandom(seed).split().nextLong() ^ (i * 0x9E3779B97F4A7C15L);
    }

    private Outcome runCase(List<Sample> corpus, long caseSeed, int index, long baseSeed) throws IOException {
        SplittableRandom r = new SplittableRandom(caseSeed);
        Sample s = corpus.get(r.nextInt(corpus.size()));
        List<String> log = new ArrayList<>();
        byte[] mutated = mutate(s, r, log);
        currentCase = describe(caseSeed, index, baseSeed, s, log);
        try {
            return check(mutated);
        } catch (Throwable t) {
            Path dump = Path.of("target", "fuzz-failures", String.format("case-0x%016x.gguf", caseSeed));
            Files.createDirectories(dump.getParent());
            Files.write(dump, mutated);
            throw new AssertionError(
                    currentCase + " failed with " + t + " (input saved to " + dump.toAbsolutePath() + ")", t);
        }
    }

    private static String describe(long caseSeed, int index, long baseSeed, Sample s, List<String> log) {
        return String.format(
                "case 0x%016x (#%d of base seed %d; rerun with -Djacap.fuzz.case=0x%016x) on %s: %s",
                caseSeed, index, baseSeed, caseSeed, s.name(), log);
    }

    // ------------------------------------------------------------------ checking

    private static Outcome check(byte[] image) throws IOException {
        GgufFile f;
        try {
            f = GgufFile.fromSegment(MemorySegment.ofArray(image));
        } catch (GgufFormatException e) {
            assertThat(e.getMessage()).startsWith("bad GGUF at byte ").doesNotContain("\n");
            assertThat(e.offset()).isBetween(0L, (long) image.length);
            return Outcome.REJECTED;
        }
        for (GgufTensorInfo t : f.tensors()) {
            MemorySegment d = f.data(t);
            assertThat(d.byteSize()).isEqualTo(t.byteSize());
            if (d.byteSize() > 0) {
                d.get(ValueLayout.JAVA_BYTE, 0);
                d.get(ValueLayout.JAVA_BYTE, d.byteSize() - 1);
            }
        }
        GgufWriter w;
        try {
            w = GgufWriter.copyOf(f);
        } catch (IllegalArgumentException refused) {
            // Readable but not writable as is: e.g. a rank-0 tensor, a name over 63 bytes, a non-UINT32 alignment.
            return Outcome.PARSED_NOT_REENCODABLE;
        }
        GgufFile again = GgufFile.fromSegment(MemorySegment.ofArray(w.toByteArray()));
        assertThat(List.copyOf(again.metadata().keys()))
                .isEqualTo(List.copyOf(f.metadata().keys()));
        for (Map.Entry<String, GgufValue> e : f.metadata().asMap().entrySet()) {
            assertThat(GgufValue.sameContent(again.metadata().get(e.getKey()).orElseThrow(), e.getValue()))
                    .as(e.getKey())
                    .isTrue();
        }
        assertThat(again.tensors()).hasSameSizeAs(f.tensors());
        for (int i = 0; i < f.tensors().size(); i++) {
            GgufTensorInfo a = f.tensors().get(i);
            GgufTensorInfo b = again.tensors().get(i);
            assertThat(b.name()).isEqualTo(a.name());
            assertThat(b.dims()).isEqualTo(a.dims());
            assertThat(b.type()).isEqualTo(a.type());
            assertThat(again.data(b).mismatch(f.data(a))).isEqualTo(-1L);
        }
        return Outcome.PARSED;
    }

    // ------------------------------------------------------------------ mutations

    private static final long[] EXTREMES = {
        0,
        1,
        -1,
        0x7F,
        0x80,
        0xFF,
        0xFFFF,
        1L << 16,
        Integer.MAX_VALUE,
        1L << 31,
        0xFFFF_FFFFL,
        1L << 32,
        1L << 62,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        -2,
        13,
        9,
        4,
        5
    };

    private static byte[] mutate(Sample s, SplittableRandom r, List<String> log) {
        byte[] b = s.image().clone();
        int ops = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1; // mostly one change, so that some files still parse
        for (int k = 0; k < ops && b.length > 0; k++) {
            switch (r.nextInt(8)) {
                case 0 -> {
                    int n = 1 + r.nextInt(8);
                    for (int j = 0; j < n; j++) {
                        int at = pick(b, s, r);
                        int bit = r.nextInt(8);
                        b[at] ^= (byte) (1 << bit);
                        log.add("flip bit " + bit + " @" + at);
                    }
                }
                case 1 -> {
                    int at = pick(b, s, r);
                    int n = Math.min(1 + r.nextInt(8), b.length - at);
                    int v = switch (r.nextInt(4)) {
                        case 0 -> 0;
                        case 1 -> 0xFF;
                        case 2 -> 0x80;
                        default -> -1;
                    };
                    for (int j = 0; j < n; j++) {
                        b[at + j] = (byte) (v == -1 ? r.nextInt(256) : v);
                    }
                    log.add("overwrite " + n + " bytes @" + at + (v == -1 ? " random" : " with " + v));
                }
                case 2, 3, 4 -> {
                    if (s.fields().isEmpty()) {
                        continue;
                    }
                    GgufFieldMap.Field f = s.fields().get(r.nextInt(s.fields().size()));
                    if (f.offset() + f.width() > b.length) {
                        continue;
                    }
                    long old = readLe(b, (int) f.offset(), f.width());
                    long v = switch (r.nextInt(5)) {
                        case 0 -> old + 1;
                        case 1 -> old - 1;
                        case 2 -> old * 2 + r.nextInt(3);
                        case 3 -> b.length - f.offset() + r.nextInt(-2, 3);
                        default -> EXTREMES[r.nextInt(EXTREMES.length)];
                    };
                    writeLe(b, (int) f.offset(), f.width(), v);
                    log.add(f.kind() + " @" + f.offset() + " = " + Long.toUnsignedString(v) + " (was " + old + ")");
                }
                case 5 -> {
                    int at = r.nextInt(10) < 8 ? pick(b, s, r) : r.nextInt(b.length);
                    b = Arrays.copyOf(b, at);
                    log.add("truncate to " + at);
                }
                case 6 -> {
                    int from = pick(b, s, r);
                    int len = Math.min(1 + r.nextInt(r.nextBoolean() ? 16 : 2048), b.length - from);
                    int to = pick(b, s, r);
                    byte[] out = new byte[b.length + len];
                    System.arraycopy(b, 0, out, 0, to);
                    System.arraycopy(b, from, out, to, len);
                    System.arraycopy(b, to, out, to + len, b.length - to);
                    b = out;
                    log.add("duplicate " + len + " bytes from @" + from + " to @" + to);
                }
                default -> {
                    int at = pick(b, s, r);
                    int len = Math.min(1 + r.nextInt(r.nextBoolean() ? 16 : 2048), b.length - at);
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(b, at + len, out, at, b.length - at - len);
                    b = out;
                    log.add("remove " + len + " bytes @" + at);
                }
            }
        }
        return b;
    }

    /** A position, mostly inside the header, where mutations matter most. */
    private static int pick(byte[] b, Sample s, SplittableRandom r) {
        int header = (int) Math.min(s.headerEnd(), b.length);
        return header > 0 && r.nextInt(100) < 85 ? r.nextInt(header) : r.nextInt(b.length);
    }

    private static long readLe(byte[] b, int at, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    private static void writeLe(byte[] b, int at, int width, long v) {
        for (int i = 0; i < width; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    // ------------------------------------------------------------------ corpus

    /**
     * stories260K in all four types, the llama Q4_0 oracle model, every vocab file shrunk to its
     * first few hundred tokens (a valid small file), and one raw vocab prefix (cut inside the tokens).
     */
    private static List<Sample> corpus(Path fixtures) throws IOException {
        List<Sample> out = new ArrayList<>();
        List<Path> models;
        try (Stream<Path> s = Files.list(fixtures.resolve("models"))) {
            models = s.filter(p -> p.getFileName().toString().startsWith("stories260K"))
                    .sorted()
                    .toList();
        }
        for (Path p : models) {
            out.add(sample(p.getFileName().toString(), Files.readAllBytes(p)));
        }
        Path oracle = fixtures.resolve("oracle/models/llama-Q4_0.gguf");
        if (Files.exists(oracle)) {
            out.add(sample("oracle/llama-Q4_0.gguf", Files.readAllBytes(oracle)));
        }
        List<Path> vocabs;
        try (Stream<Path> s = Files.list(fixtures.resolve("vocab"))) {
            vocabs = s.filter(p -> p.toString().endsWith(".gguf")).sorted().toList();
        }
        for (Path p : vocabs) {
            try (GgufFile f = GgufFile.open(p)) {
                GgufWriter w = new GgufWriter();
                f.metadata()
                        .asMap()
                        .forEach((k, v) -> w.put(k, v instanceof GgufValue.ArrayValue a ? head(a, VOCAB_ELEMENTS) : v));
                out.add(sample(p.getFileName() + " (first " + VOCAB_ELEMENTS + " entries)", w.toByteArray()));
            }
        }
        if (!vocabs.isEmpty()) {
            byte[] all = Files.readAllBytes(vocabs.getLast());
            byte[] prefix = Arrays.copyOf(all, Math.min(all.length, VOCAB_PREFIX_BYTES));
            out.add(new Sample(
                    vocabs.getLast().getFileName() + " (first " + prefix.length + " bytes)",
                    prefix,
                    prefix.length,
                    List.of()));
        }
        assertThat(out).hasSizeGreaterThanOrEqualTo(4);
        return out;
    }

    private static Sample sample(String name, byte[] image) {
        GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(image));
        return new Sample(name, image, f.tensors().isEmpty() ? image.length : f.dataStart(), GgufFieldMap.of(image));
    }

    private static GgufValue.ArrayValue head(GgufValue.ArrayValue a, int n) {
        if (a.length() <= n) {
            return a;
        }
        return switch (a.elementType()) {
            case STRING -> GgufValue.ArrayValue.ofStrings(Arrays.copyOf(a.strings(), n));
            case ARRAY -> GgufValue.ArrayValue.ofArrays(Arrays.copyOf(a.arrays(), n));
            case BOOL -> GgufValue.ArrayValue.ofBools(Arrays.copyOf(a.bools(), n));
            case FLOAT32, FLOAT64 -> GgufValue.ArrayValue.ofDoubles(a.elementType(), Arrays.copyOf(a.doubles(), n));
            default -> GgufValue.ArrayValue.ofLongs(a.elementType(), Arrays.copyOf(a.longs(), n));
        };
    }
}
