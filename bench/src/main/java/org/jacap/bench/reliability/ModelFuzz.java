package org.jacap.bench.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufFormatException;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.jacap.tokenizer.Tokenizer;

/**
 * The model fuzz campaign (issue 17): mutates real models and fixture files and runs every
 * mutant through the whole load (GGUF parse, hyperparameter checks, weight binding, paging in),
 * the tokenizer and one forward step. Each case ends in one of {@link FuzzOutcome}; any
 * {@link FuzzOutcome#CRASH} is a bug, reported with the case seed that reproduces it.
 *
 * <pre>
 * java --add-modules jdk.incubator.vector -Xmx1g -cp CLASSPATH org.jacap.bench.reliability.ModelFuzz \
 *     [--seed N] [--cases N] [--minutes M] [--real-share F] [--fixtures DIR] [--models DIR] [--case 0xSEED]
 * </pre>
 *
 * Seeded and bounded by a case count and a time cap: the same seed and count give the same cases.
 */
public final class ModelFuzz {
    /** What to run. */
    public record Settings(
            long seed, int cases, double minutes, double realShare, Path fixtures, Path models, Long onlyCase) {}

    /** Outcome counts per sample and the crashes found. */
    public record Report(
            int cases, double seconds, Map<String, int[]> bySample, List<String> crashes, double slowestCaseSeconds) {
        public int count(FuzzOutcome o) {
            return bySample.values().stream().mapToInt(c -> c[o.ordinal()]).sum();
        }
    }

    public static final long DEFAULT_SEED = 0x6A61636170L; // "jacap"
    private static final int KEPT_CRASHES = 50;
    private static final double HANG_SECONDS = 300;

    private final List<FuzzSample> small;
    private final List<FuzzSample> large;
    private final Settings settings;
    private volatile long caseStarted;
    private volatile String currentCase = "none";

    private ModelFuzz(Settings settings, List<FuzzSample> small, List<FuzzSample> large) {
        this.settings = settings;
        this.small = small;
        this.large = large;
    }

    public static void main(String[] args) throws IOException {
        Settings s = parse(args);
        Report r = run(s, System.out);
        System.exit(r.crashes().isEmpty() ? 0 : 1);
    }

    /** Runs the campaign, printing progress and the final table to {@code out}. */
    public static Report run(Settings s, PrintStream out) throws IOException {
        Path work = Files.createTempDirectory("jacap-fuzz");
        try {
            return run(s, out, work);
        } finally {
            try (Stream<Path> files = Files.list(work)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(work);
        }
    }

    private static Report run(Settings s, PrintStream out, Path work) throws IOException {
        List<FuzzSample> small = new ArrayList<>();
        List<FuzzSample> large = new ArrayList<>();
        for (Path p : corpus(s)) {
            FuzzSample sample = FuzzSample.of(p, work);
            (sample.inMemory() ? small : large).add(sample);
        }
        if (small.isEmpty() && large.isEmpty()) {
            throw new IllegalStateException("no corpus files found under " + s.fixtures() + " or " + s.models());
        }
        out.printf(
                Locale.ROOT,
                "model fuzz: seed %d, up to %d cases or %.1f min; corpus %d small + %d large files (%s)%n",
                s.seed(),
                s.cases(),
                s.minutes(),
                small.size(),
                large.size(),
                String.join(", ", large.stream().map(FuzzSample::name).toList()));
        return new ModelFuzz(s, small, large).campaign(out);
    }

    private Report campaign(PrintStream out) {
        Map<String, int[]> bySample = new LinkedHashMap<>();
        List<String> crashes = new ArrayList<>();
        Thread watchdog = Thread.ofPlatform().daemon().start(this::watch);
        long start = System.nanoTime();
        long deadline = start + (long) (settings.minutes() * 60e9);
        double slowest = 0;
        int done = 0;
        int total = settings.onlyCase() != null ? 1 : settings.cases();
        for (; done < total && System.nanoTime() < deadline; done++) {
            long caseSeed = settings.onlyCase() != null ? settings.onlyCase() : caseSeed(settings.seed(), done);
            caseStarted = System.nanoTime();
            CaseResult c = runCase(caseSeed);
            slowest = Math.max(slowest, (System.nanoTime() - caseStarted) / 1e9);
            bySample.computeIfAbsent(c.sample(), k -> new int[FuzzOutcome.values().length])[
                    c.outcome().ordinal()]++;
            if (c.outcome() == FuzzOutcome.CRASH && crashes.size() < KEPT_CRASHES) {
                crashes.add(c.detail());
                out.println("CRASH " + c.detail());
            }
            if ((done + 1) % 10_000 == 0) {
                out.printf(Locale.ROOT, "  %d cases, %.0f s%n", done + 1, (System.nanoTime() - start) / 1e9);
            }
        }
        caseStarted = 0;
        watchdog.interrupt();
        Report r = new Report(done, (System.nanoTime() - start) / 1e9, bySample, crashes, slowest);
        print(r, out);
        return r;
    }

    private record CaseResult(String sample, FuzzOutcome outcome, String detail) {}

    private CaseResult runCase(long caseSeed) {
        SplittableRandom r = new SplittableRandom(caseSeed);
        boolean real = !large.isEmpty() && (small.isEmpty() || r.nextDouble() < settings.realShare());
        List<FuzzSample> from = real ? large : small;
        FuzzSample s = from.get(r.nextInt(from.size()));
        List<String> log = new ArrayList<>();
        currentCase = String.format(Locale.ROOT, "case 0x%016x on %s", caseSeed, s.name());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment image;
            if (s.inMemory()) {
                byte[] b = GgufMutator.mutate(s, r, log);
                image = arena.allocate(Math.max(1, b.length), 64).asSlice(0, b.length);
                MemorySegment.copy(b, 0, image, ValueLayout.JAVA_BYTE, 0, b.length);
            } else {
                image = GgufMutator.mutateInPlace(s.mapPrivate(arena), s, r, log);
            }
            currentCase += ": " + log;
            FuzzOutcome o = exercise(image);
            return new CaseResult(s.name(), o, currentCase);
        } catch (Throwable t) {
            String detail =
                    currentCase + " -> " + t + String.format(Locale.ROOT, " (rerun with --case 0x%016x)", caseSeed);
            return new CaseResult(s.name(), FuzzOutcome.CRASH, detail);
        }
    }

    /** Load, tokenizer, one forward step: the first documented failure names the outcome. */
    static FuzzOutcome exercise(MemorySegment image) {
        GgufFile file;
        try {
            file = GgufFile.fromSegment(image);
        } catch (GgufFormatException e) {
            return FuzzOutcome.FORMAT_REJECTED;
        }
        Model model;
        try {
            model = Model.fromFile(file, new LoadOptions(1, Precision.NATIVE, null));
        } catch (JacapException | GgufFormatException e) { // a missing or mistyped key: GgufMetadataException
            return FuzzOutcome.MODEL_REJECTED;
        }
        try {
            int vocab = model.config().vocabSize();
            try {
                Tokenizer t = Tokenizer.fromMetadata(model.metadata());
                t.encode("Once upon a time, <s> \u00e9t\u00e9 \uD83D\uDE00", t.addBosByDefault(), true);
            } catch (JacapException | GgufFormatException e) {
                return FuzzOutcome.MODEL_REJECTED;
            }
            try {
                float[] logits = model.forward(model.newState(4), new int[] {Math.min(1, vocab - 1)}, 0, 1, false);
                if (logits.length != vocab) {
                    throw new AssertionError("logits of length " + logits.length + " for a vocabulary of " + vocab);
                }
            } catch (JacapException e) {
                return FuzzOutcome.FORWARD_REJECTED;
            }
            return FuzzOutcome.RAN;
        } finally {
            model.close();
        }
    }

    /** A stuck case (a hang is a bug too) ends the campaign, naming the case. */
    private void watch() {
        while (!Thread.currentThread().isInterrupted()) {
            long t = caseStarted;
            if (t != 0 && (System.nanoTime() - t) / 1e9 > HANG_SECONDS) {
                System.out.println("HANG: " + currentCase + " ran over " + HANG_SECONDS + " s");
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static long caseSeed(long seed, int i) {
        return new SplittableRandom(seed).split().nextLong() ^ (i * 0x9E3779B97F4A7C15L);
    }

    private static List<Path> corpus(Settings s) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path dir : new Path[] {
            s.fixtures() == null ? null : s.fixtures().resolve("models"),
            s.fixtures() == null ? null : s.fixtures().resolve("oracle/models"),
            s.models()
        }) {
            if (dir != null && Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    files.filter(p -> p.toString().endsWith(".gguf")).sorted().forEach(out::add);
                }
            }
        }
        return out;
    }

    private static void print(Report r, PrintStream out) {
        StringBuilder header = new StringBuilder("| file | cases |");
        StringBuilder rule = new StringBuilder("|---|---:|");
        for (FuzzOutcome o : FuzzOutcome.values()) {
            header.append(' ').append(o.label).append(" |");
            rule.append("---:|");
        }
        out.println();
        out.println(header);
        out.println(rule);
        int[] totals = new int[FuzzOutcome.values().length];
        r.bySample().forEach((name, c) -> {
            StringBuilder row = new StringBuilder("| ")
                    .append(name)
                    .append(" | ")
                    .append(sum(c))
                    .append(" |");
            for (int i = 0; i < c.length; i++) {
                row.append(' ').append(c[i]).append(" |");
                totals[i] += c[i];
            }
            out.println(row);
        });
        StringBuilder all = new StringBuilder("| **all** | ").append(r.cases()).append(" |");
        for (int t : totals) {
            all.append(' ').append(t).append(" |");
        }
        out.println(all);
        out.printf(
                Locale.ROOT,
                "%nmodel fuzz: %d cases in %.1f s (%.0f cases/s), slowest case %.2f s: %d ran, %d GGUF rejected, %d model"
                        + " rejected, %d forward rejected, %d crashes%n",
                r.cases(),
                r.seconds(),
                r.cases() / Math.max(r.seconds(), 1e-9),
                r.slowestCaseSeconds(),
                totals[FuzzOutcome.RAN.ordinal()],
                totals[FuzzOutcome.FORMAT_REJECTED.ordinal()],
                totals[FuzzOutcome.MODEL_REJECTED.ordinal()],
                totals[FuzzOutcome.FORWARD_REJECTED.ordinal()],
                totals[FuzzOutcome.CRASH.ordinal()]);
    }

    private static int sum(int[] c) {
        int n = 0;
        for (int x : c) {
            n += x;
        }
        return n;
    }

    private static Settings parse(String[] args) {
        long seed = DEFAULT_SEED;
        int cases = 100_000;
        double minutes = 60;
        double realShare = 0.03;
        Path fixtures = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"));
        Path models =
                Path.of(System.getProperty("jacap.models", System.getProperty("user.home") + "/.cache/jacap/models"));
        Long only = null;
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(v);
                case "--cases" -> cases = Integer.parseInt(v);
                case "--minutes" -> minutes = Double.parseDouble(v);
                case "--real-share" -> realShare = Double.parseDouble(v);
                case "--fixtures" -> fixtures = Path.of(v);
                case "--models" -> models = Path.of(v);
                case "--case" -> only = Long.parseUnsignedLong(v.replaceFirst("^0x", ""), 16);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
            i++;
        }
        return new Settings(seed, cases, minutes, realShare, fixtures, models, only);
    }
}
