package org.jacap.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every malformed input fails fast with one {@link GgufFormatException} that names the byte where
 * the problem is: never an OOM, a hang, or a JDK exception from reading out of bounds.
 */
class HostileGgufTest {
    private static final int ARRAY = GgufValueType.ARRAY.id();
    private static final int STRING = GgufValueType.STRING.id();
    private static final int UINT8 = GgufValueType.UINT8.id();
    private static final int F32 = GgmlType.F32.id();

    @TempDir
    Path tmp;

    /** Parses {@code image} and expects a format error at {@code offset} whose message contains {@code text}. */
    private static GgufFormatException expectError(byte[] image, long offset, String text) {
        try {
            GgufFile.fromSegment(MemorySegment.ofArray(image));
        } catch (GgufFormatException e) {
            assertThat(e.getMessage()).contains(text).doesNotContain("\n");
            assertThat(e.offset()).as(e.getMessage()).isEqualTo(offset);
            assertThat(e.getMessage()).startsWith("bad GGUF at byte " + offset + ": ");
            return e;
        }
        return fail("expected a GgufFormatException containing '" + text + "'");
    }

    private static GgufWriter smallModel() {
        GgufWriter w = new GgufWriter()
                .putString("general.architecture", "llama")
                .putUInt32("llama.block_count", 2)
                .putStringArray("tokenizer.ggml.tokens", List.of("<unk>", "<s>", "</s>", "a"))
                .putFloat32Array("tokenizer.ggml.scores", new float[] {0, 0, 0, -1});
        w.addTensor("token_embd.weight", new long[] {8}, GgmlType.F32, new byte[32]);
        w.addTensor("output.weight", new long[] {32, 2}, GgmlType.Q8_0, new byte[68]);
        return w;
    }

    // ------------------------------------------------------------------ header

    @Test
    void emptyAndTinyFiles() {
        expectError(new byte[0], 0, "empty file");
        expectError(new byte[] {'G', 'G'}, 0, "file ends while reading the GGUF magic");
        expectError("GGUF".getBytes(), 4, "file ends while reading the version");
    }

    @Test
    void badMagic() {
        byte[] image = smallModelImage();
        image[0] = 'g';
        expectError(image, 0, "not a GGUF file (starts with 0x67475546");
    }

    @Test
    void unsupportedVersions() {
        expectError(RawGguf.header(1, 0, 0).bytes(), 4, "GGUF version 1 is no longer supported");
        expectError(RawGguf.header(4, 0, 0).bytes(), 4, "unsupported GGUF version 4 (supported: 2, 3)");
        expectError(RawGguf.header(0, 0, 0).bytes(), 4, "unsupported GGUF version 0");
        expectError(RawGguf.header(0x03000000, 0, 0).bytes(), 4, "big-endian GGUF files are not supported");
        expectError(RawGguf.header(-1, 0, 0).bytes(), 4, "unsupported GGUF version 4294967295");
    }

    @Test
    void version2IsAccepted() {
        byte[] image = RawGguf.header(2, 0, 1)
                .kvString("general.architecture", "llama")
                .bytes();
        assertThat(GgufFile.fromSegment(MemorySegment.ofArray(image)).version()).isEqualTo(2);
    }

    @Test
    void hugeCounts() {
        for (long count : new long[] {1L << 62, -1L, Long.MAX_VALUE, 1L << 32, 1000}) {
            expectError(
                    RawGguf.header(3, count, 0).bytes(),
                    8,
                    "tensor count " + Long.toUnsignedString(count) + " cannot fit");
            expectError(
                    RawGguf.header(3, 0, count).bytes(),
                    16,
                    "metadata count " + Long.toUnsignedString(count) + " cannot fit");
        }
    }

    // ------------------------------------------------------------------ truncation

    private static byte[] smallModelImage() {
        try {
            return smallModel().toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void truncatedAtEveryByte() {
        byte[] image = smallModelImage();
        GgufFile whole = GgufFile.fromSegment(MemorySegment.ofArray(image));
        assertThat(whole.tensors()).hasSize(2);
        GgufTensorInfo last = whole.tensors().get(1);
        long dataEnd = whole.dataStart() + last.offset() + last.byteSize();
        Set<String> kinds = new HashSet<>();
        for (int cut = 0; cut < image.length; cut++) {
            byte[] part = Arrays.copyOf(image, cut);
            try {
                GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(part));
                // Only the zero padding after the last tensor may be missing: every tensor is still whole.
                assertThat((long) cut)
                        .as("a file cut at byte %d of %d parsed", cut, image.length)
                        .isGreaterThanOrEqualTo(dataEnd);
                assertThat(f.data(last).byteSize()).isEqualTo(68);
            } catch (GgufFormatException e) {
                assertThat(e.offset()).as("cut at %d: %s", cut, e.getMessage()).isBetween(0L, (long) cut);
                assertThat(e.getMessage()).doesNotContain("\n");
                kinds.add(kindOf(e.getMessage()));
            }
        }
        assertThat(kinds).containsExactlyInAnyOrder("empty", "header", "key", "value", "tensor info", "data");
    }

    /** A part of the file, and words of the messages of errors found in it. */
    private record Part(String name, List<String> words) {}

    /** In the order of the file; a message is the first part it has a word of. */
    private static final List<Part> PARTS = List.of(
            new Part("empty", List.of("empty file")),
            new Part("header", List.of("tensor count", "metadata count", "the version", "magic")),
            new Part("key", List.of("metadata key")),
            new Part("value", List.of("the value of", "element ", "array length", "element type")),
            new Part("tensor info", List.of("of tensor", "tensor #")),
            new Part("data", List.of("extends past the end of the file")));

    /** Which part of the file a truncation error names; the message itself when none matches. */
    private static String kindOf(String m) {
        for (Part p : PARTS) {
            if (p.words().stream().anyMatch(m::contains)) {
                return p.name();
            }
        }
        return m;
    }

    @Test
    void dataSectionCutNamesTheTensorsOffsetField() {
        byte[] image = smallModelImage();
        GgufFile whole = GgufFile.fromSegment(MemorySegment.ofArray(image));
        GgufTensorInfo last = whole.tensors().get(1);
        byte[] cut = Arrays.copyOf(image, (int) (whole.dataStart() + last.offset() + 10));
        // The info holds: name length (8) + name + rank (4) + 2 dims (16) + type (4), then the offset field.
        String name = "output.weight";
        long offsetField = lastIndexOf(image, name.getBytes()) + name.length() + 4 + 16 + 4;
        expectError(
                cut,
                offsetField,
                "tensor 'output.weight' (68 bytes at data offset 32, file byte " + (whole.dataStart() + 32)
                        + ") extends past the end of the file (" + cut.length + " bytes)");
    }

    private static int lastIndexOf(byte[] haystack, byte[] needle) {
        for (int i = haystack.length - needle.length; i >= 0; i--) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    // ------------------------------------------------------------------ metadata

    @Test
    void hugeStringLengths() {
        for (long len : new long[] {1L << 32, -1L, 1L << 62, 100}) {
            RawGguf key = RawGguf.header(3, 0, 1);
            long at = key.mark();
            expectError(
                    key.u64(len).raw("abc".getBytes()).zeros(16).bytes(),
                    at,
                    "string length " + Long.toUnsignedString(len) + " of metadata key #0 exceeds");
            RawGguf value = RawGguf.header(3, 0, 1).str("k").u32(STRING);
            long vat = value.mark();
            expectError(
                    value.u64(len).raw("abc".getBytes()).bytes(),
                    vat,
                    "string length " + Long.toUnsignedString(len) + " of the value of 'k'");
        }
    }

    @Test
    void hugeArrayLengths() {
        for (long len : new long[] {1L << 62, -1L, 1L << 31, (1L << 31) - 1, 1L << 32, 5}) {
            for (int et : new int[] {UINT8, STRING, ARRAY, GgufValueType.FLOAT64.id(), GgufValueType.BOOL.id()}) {
                RawGguf g = RawGguf.header(3, 0, 1)
                        .str("tokenizer.ggml.tokens")
                        .u32(ARRAY)
                        .u32(et);
                long at = g.mark();
                expectError(
                        g.u64(len).zeros(4).bytes(),
                        at,
                        "array length " + Long.toUnsignedString(len) + " of 'tokenizer.ggml.tokens' ("
                                + GgufValueType.fromId(et) + ") cannot fit");
            }
        }
    }

    @Test
    void aTinyFileClaimingTwoBillionStringsAllocatesNothingBig() {
        long before = usedHeap();
        RawGguf g = RawGguf.header(3, 0, 1).str("tokens").u32(ARRAY).u32(STRING);
        long at = g.mark();
        // 2^31 - 17 elements: just under the Java array limit, so only the length bound stops it.
        expectError(g.u64((1L << 31) - 17).str("a").str("b").bytes(), at, "cannot fit in the 18 bytes left");
        assertThat(usedHeap() - before).isLessThan(64L << 20);
    }

    @Test
    void headerThatWouldExpandBeyondTheHeapBudgetIsRefused() {
        // 80 M one-byte elements are stored as 80 M longs (640 MB): refused before allocating.
        int n = 80_000_000;
        byte[] head =
                RawGguf.header(3, 0, 1).str("big").u32(ARRAY).u32(UINT8).u64(n).bytes();
        byte[] image = Arrays.copyOf(head, head.length + n);
        expectError(image, head.length - 8, "the header would take more than 512 MiB of memory (at 'big')");
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    @Test
    void deeplyNestedArrays() {
        RawGguf g = RawGguf.header(3, 0, 1).str("deep").u32(ARRAY);
        long first = g.mark();
        for (int i = 0; i < 10_000; i++) {
            g.u32(ARRAY).u64(1);
        }
        expectError(
                g.bytes(), first + 12L * GgufReader.MAX_ARRAY_DEPTH, "arrays nested deeper than 8 levels in 'deep'");
    }

    @Test
    void unknownValueTypes() {
        for (long type : new long[] {13, 255, 0xFFFF_FFFFL}) {
            RawGguf g = RawGguf.header(3, 0, 1).str("k");
            long at = g.mark();
            expectError(g.u32(type).u32(0).bytes(), at, "unknown value type " + type + " for metadata key 'k'");
            RawGguf a = RawGguf.header(3, 0, 1).str("k").u32(ARRAY);
            long aat = a.mark();
            expectError(a.u32(type).u64(0).bytes(), aat, "unknown value type " + type + " for the element type of 'k'");
        }
    }

    @Test
    void boolMustBeZeroOrOne() {
        RawGguf g = RawGguf.header(3, 0, 1).str("flag").u32(GgufValueType.BOOL.id());
        long at = g.mark();
        expectError(g.u8(2).bytes(), at, "bool in 'flag' is 2");
        RawGguf a = RawGguf.header(3, 0, 1)
                .str("flags")
                .u32(ARRAY)
                .u32(GgufValueType.BOOL.id())
                .u64(3);
        long aat = a.mark();
        expectError(a.u8(1).u8(0).u8(-1).bytes(), aat + 2, "bool in 'flags' is -1");
    }

    @Test
    void duplicateKeys() {
        byte[] same = RawGguf.header(3, 0, 3)
                .kvU32("general.file_type", 2)
                .kvString("a", "b")
                .kvU32("general.file_type", 2)
                .bytes();
        GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(same));
        assertThat(f.metadata().getInt("general.file_type")).isEqualTo(2);
        assertThat(List.copyOf(f.metadata().keys())).containsExactly("general.file_type", "a");
        assertThat(f.warnings()).singleElement().asString().contains("'general.file_type' appears twice (same value)");

        RawGguf g = RawGguf.header(3, 0, 2).kvU32("general.file_type", 2);
        long at = g.mark();
        expectError(
                g.kvU32("general.file_type", 7).bytes(),
                at,
                "metadata key 'general.file_type' appears twice with different values");
        // Same number, different type: a conflict too.
        RawGguf t = RawGguf.header(3, 0, 2).kvU32("n", 2);
        long tat = t.mark();
        expectError(
                t.str("n").u32(GgufValueType.INT32.id()).u32(2).bytes(), tat, "appears twice with different values");
    }

    @Test
    void controlCharactersInNamesStayOnOneLine() {
        RawGguf g = RawGguf.header(3, 0, 2).kvU32("evil\nkey\u001b[31m", 1);
        long at = g.mark();
        GgufFormatException e = expectError(g.kvU32("evil\nkey\u001b[31m", 2).bytes(), at, "'evil\\x0akey\\x1b[31m'");
        assertThat(e.getMessage()).doesNotContain("\u001b");
        String longKey = "k".repeat(100_000);
        RawGguf l = RawGguf.header(3, 0, 1).str(longKey);
        long lat = l.mark();
        assertThat(expectError(l.u32(99).bytes(), lat, "…(100000 chars)")
                        .getMessage()
                        .length())
                .isLessThan(300);
    }

    @Test
    void badAlignment() {
        for (long a : new long[] {0, 3, 48, 1L << 31, 0xFFFF_FFFFL}) {
            RawGguf g = RawGguf.header(3, 0, 1).str("general.alignment");
            long at = g.mark();
            expectError(
                    g.u32(GgufValueType.UINT32.id()).u32(a).bytes(),
                    at,
                    "general.alignment is " + a + ", expected a power of two");
        }
        RawGguf neg = RawGguf.header(3, 0, 1).str("general.alignment");
        long nat = neg.mark();
        expectError(neg.u32(GgufValueType.INT32.id()).u32(-32).bytes(), nat, "general.alignment is -32");
        RawGguf s = RawGguf.header(3, 0, 1).str("general.alignment");
        long sat = s.mark();
        expectError(s.u32(STRING).str("32").bytes(), sat, "general.alignment has type STRING, expected an integer");
    }

    // ------------------------------------------------------------------ tensor infos

    private static RawGguf oneTensorHeader() {
        return RawGguf.header(3, 1, 1).kvString("general.architecture", "llama");
    }

    @Test
    void tensorInfoProblems() {
        RawGguf g = oneTensorHeader().str("t");
        long rankAt = g.mark();
        expectError(g.u32(5).bytes(), rankAt, "tensor 't' has rank 5 (at most 4)");
        expectError(oneTensorHeader().str("t").u32(-1).bytes(), rankAt, "tensor 't' has rank 4294967295");

        long dimAt = rankAt + 4;
        expectError(
                oneTensorHeader().str("t").u32(2).u64(4).u64(0).u32(F32).u64(0).bytes(),
                dimAt + 8,
                "tensor 't' dimension 1 is 0 (must be positive)");
        expectError(
                oneTensorHeader().str("t").u32(1).u64(-5).u32(F32).u64(0).bytes(),
                dimAt,
                "tensor 't' dimension 0 is -5");
        expectError(
                oneTensorHeader()
                        .str("t")
                        .u32(3)
                        .u64(1L << 31)
                        .u64(1L << 31)
                        .u64(1L << 31)
                        .u32(F32)
                        .u64(0)
                        .bytes(),
                dimAt + 16,
                "element count overflows");

        long typeAt = dimAt + 8;
        for (long id : new long[] {4, 5, 31, 99, 0xFFFF_FFFFL}) {
            expectError(
                    oneTensorHeader().str("t").u32(1).u64(4).u32(id).u64(0).bytes(),
                    typeAt,
                    "tensor 't' has unknown ggml type id " + id);
        }
        expectError(
                oneTensorHeader()
                        .str("t")
                        .u32(1)
                        .u64(33)
                        .u32(GgmlType.Q4_0.id())
                        .u64(0)
                        .bytes(),
                typeAt,
                "width 33 is not a multiple of the Q4_0 block size 32");
        // Every element count fits, but the byte size does not.
        expectError(
                oneTensorHeader()
                        .str("t")
                        .u32(2)
                        .u64(1L << 32)
                        .u64(1L << 30)
                        .u32(GgmlType.F64.id())
                        .u64(0)
                        .bytes(),
                typeAt + 8,
                "byte size overflows");

        long offsetAt = typeAt + 4;
        expectError(
                oneTensorHeader().str("t").u32(1).u64(4).u32(F32).u64(16).bytes(),
                offsetAt,
                "tensor 't' data offset 16 is not a multiple of the alignment 32");
        expectError(
                oneTensorHeader().str("t").u32(1).u64(4).u32(F32).u64(-32).bytes(),
                offsetAt,
                "data offset 18446744073709551584 is not a multiple");
    }

    @Test
    void tensorDataPastTheEnd() {
        RawGguf base = oneTensorHeader();
        long offsetAt = base.mark() + 8 + 1 + 4 + 8 + 4;
        byte[] far = oneTensorHeader()
                .tensor("t", new long[] {4}, F32, 1L << 40)
                .pad(32)
                .zeros(16)
                .bytes();
        expectError(far, offsetAt, "tensor 't' (16 bytes at data offset 1099511627776");
        byte[] huge = oneTensorHeader()
                .tensor("t", new long[] {1L << 60}, GgmlType.I8.id(), Long.MAX_VALUE - 31)
                .pad(32)
                .bytes();
        expectError(huge, offsetAt, "extends past the end of the file");
        byte[] noData = oneTensorHeader().tensor("t", new long[] {4}, F32, 0).bytes();
        expectError(noData, offsetAt, "extends past the end of the file (" + noData.length + " bytes)");
        byte[] exact = oneTensorHeader()
                .tensor("t", new long[] {4}, F32, 0)
                .pad(32)
                .zeros(16)
                .bytes();
        assertThat(GgufFile.fromSegment(MemorySegment.ofArray(exact)).tensors()).hasSize(1);
    }

    @Test
    void duplicateTensorNames() {
        RawGguf g = RawGguf.header(3, 2, 0).tensor("w", new long[] {4}, F32, 0);
        long at = g.mark();
        expectError(g.tensor("w", new long[] {4}, F32, 32).pad(32).zeros(64).bytes(), at, "duplicate tensor name 'w'");
    }

    @Test
    void rankZeroTensorIsOneElement() {
        byte[] image = RawGguf.header(3, 1, 0)
                .tensor("scalar", new long[0], F32, 0)
                .pad(32)
                .zeros(32)
                .bytes();
        GgufTensorInfo t = GgufFile.fromSegment(MemorySegment.ofArray(image)).tensor("scalar");
        assertThat(t.elementCount()).isEqualTo(1);
        assertThat(t.byteSize()).isEqualTo(4);
    }

    // ------------------------------------------------------------------ files

    @Test
    void missingFileDirectoryAndDevices() throws IOException {
        assertThatThrownBy(() -> GgufFile.open(tmp.resolve("nope.gguf"))).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> GgufFile.open(tmp))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is a directory");
        Path devNull = Path.of("/dev/null");
        if (Files.exists(devNull)) {
            assertThatThrownBy(() -> GgufFile.open(devNull))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("not a regular file");
        }
        Path empty = Files.createFile(tmp.resolve("empty.gguf"));
        assertThatThrownBy(() -> GgufFile.open(empty))
                .isInstanceOf(GgufFormatException.class)
                .hasMessage(empty + ": bad GGUF at byte 0: empty file");
    }

    @Test
    void aFailedOpenReleasesTheMapping() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        assumeTrue(Files.isReadable(maps), "needs /proc/self/maps (Linux) to see mappings");
        byte[] image = smallModelImage();
        Path bad = tmp.resolve("truncated-model.gguf");
        Files.write(bad, Arrays.copyOf(image, image.length - 40));
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> GgufFile.open(bad))
                    .isInstanceOf(GgufFormatException.class)
                    .hasMessageStartingWith(bad + ": bad GGUF at byte ")
                    .hasMessageContaining("extends past the end of the file");
        }
        Path good = tmp.resolve("good-model.gguf");
        Files.write(good, image);
        try (GgufFile f = GgufFile.open(good)) {
            assertThat(f.tensors()).hasSize(2);
            assertThat(Files.readString(maps)).as("a live GgufFile is mapped").contains(good.toString());
        }
        String mapped = Files.readString(maps);
        assertThat(mapped).doesNotContain(bad.toString()).doesNotContain(good.toString());
    }

    // ------------------------------------------------------------------ overlapping data

    @Test
    void tensorsWhoseBytesOverlapAreRefused() {
        // a: 16 floats at 0 (64 bytes); b: 16 floats at 32, inside a (llama.cpp refuses this too).
        RawGguf g = RawGguf.header(3, 2, 0);
        g.tensor("a", new long[] {16}, F32, 0);
        long bOffsetField = g.mark() + 8 + 1 + 4 + 8 + 4; // name (u64 length + 1 byte), rank, dim, type
        g.tensor("b", new long[] {16}, F32, 32).pad(32).zeros(128);
        expectError(
                g.bytes(), bOffsetField, "tensor 'b' (data offset 32) overlaps tensor 'a' (64 bytes at data offset 0)");

        // Listed out of offset order but disjoint: fine.
        RawGguf ok = RawGguf.header(3, 2, 0);
        ok.tensor("a", new long[] {16}, F32, 64)
                .tensor("b", new long[] {16}, F32, 0)
                .pad(32)
                .zeros(128);
        assertThat(GgufFile.fromSegment(MemorySegment.ofArray(ok.bytes())).tensors())
                .hasSize(2);
    }
}
