package org.jacap.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GgufWriterTest {

    @TempDir
    Path tmp;

    /** One value of every type, extremes included, plus arrays of every element type and nested arrays. */
    static GgufWriter everyValueType() {
        GgufWriter w = new GgufWriter();
        w.put("u8", new GgufValue.IntValue(GgufValueType.UINT8, 255));
        w.put("i8", new GgufValue.IntValue(GgufValueType.INT8, -128));
        w.put("u16", new GgufValue.IntValue(GgufValueType.UINT16, 65535));
        w.put("i16", new GgufValue.IntValue(GgufValueType.INT16, -32768));
        w.putUInt32("u32", 0xFFFF_FFFFL);
        w.putInt32("i32", Integer.MIN_VALUE);
        w.putUInt64("u64", -1L); // 2^64-1 as its bit pattern
        w.put("i64", new GgufValue.IntValue(GgufValueType.INT64, Long.MIN_VALUE));
        w.putFloat32("f32", 1e-5f);
        w.putFloat64("f64", -Math.PI);
        w.putFloat32("f32.nan", Float.NaN);
        w.putFloat64("f64.inf", Double.NEGATIVE_INFINITY);
        w.putBool("bool.true", true);
        w.putBool("bool.false", false);
        w.putString("string", "Grüße, 世界 🦙\n\"quoted\"");
        w.putString("string.empty", "");
        w.putStringArray("arr.string", List.of("<unk>", "", "▁the", "🦙"));
        w.putInt32Array("arr.i32", new int[] {1, -2, Integer.MAX_VALUE});
        w.putFloat32Array("arr.f32", new float[] {0.5f, -0.0f, Float.MIN_VALUE});
        w.put("arr.u8", GgufValue.ArrayValue.ofLongs(GgufValueType.UINT8, new long[] {0, 1, 255}));
        w.put("arr.i8", GgufValue.ArrayValue.ofLongs(GgufValueType.INT8, new long[] {-128, 127}));
        w.put("arr.u16", GgufValue.ArrayValue.ofLongs(GgufValueType.UINT16, new long[] {65535}));
        w.put("arr.i16", GgufValue.ArrayValue.ofLongs(GgufValueType.INT16, new long[] {-1, 2}));
        w.put("arr.u32", GgufValue.ArrayValue.ofLongs(GgufValueType.UINT32, new long[] {0xFFFF_FFFFL}));
        w.put("arr.u64", GgufValue.ArrayValue.ofLongs(GgufValueType.UINT64, new long[] {-1L, 0}));
        w.put("arr.i64", GgufValue.ArrayValue.ofLongs(GgufValueType.INT64, new long[] {Long.MAX_VALUE}));
        w.put("arr.f64", GgufValue.ArrayValue.ofDoubles(GgufValueType.FLOAT64, new double[] {1e300, Double.NaN}));
        w.put("arr.bool", GgufValue.ArrayValue.ofBools(new boolean[] {true, false, true}));
        w.put("arr.empty", GgufValue.ArrayValue.ofStrings(new String[0]));
        GgufValue.ArrayValue leaf = GgufValue.ArrayValue.ofLongs(GgufValueType.INT32, new long[] {7, 8});
        GgufValue.ArrayValue strings = GgufValue.ArrayValue.ofStrings(new String[] {"a", "b"});
        GgufValue.ArrayValue empty = GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[0]);
        w.put("arr.nested", GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[] {
            leaf, strings, empty, GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[] {leaf, empty})
        }));
        return w;
    }

    private static void assertSameMetadata(GgufMetadata actual, GgufMetadata expected) {
        assertThat(List.copyOf(actual.keys())).isEqualTo(List.copyOf(expected.keys()));
        for (Map.Entry<String, GgufValue> e : expected.asMap().entrySet()) {
            GgufValue got = actual.get(e.getKey()).orElseThrow();
            assertThat(GgufValue.sameContent(got, e.getValue()))
                    .as("value of %s: %s vs %s", e.getKey(), got, e.getValue())
                    .isTrue();
        }
    }

    @Test
    void everyValueTypeRoundTripsInInsertionOrder() throws IOException {
        GgufWriter w = everyValueType();
        byte[] image = w.toByteArray();
        assertThat((long) image.length).isEqualTo(w.fileSize());
        GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(image));
        assertThat(f.version()).isEqualTo(3);
        assertThat(f.tensors()).isEmpty();
        assertThat(f.warnings()).isEmpty();
        assertSameMetadata(f.metadata(), w.metadata());
        assertThat(f.metadata().getLong("u64")).isEqualTo(-1L);
        assertThat(f.metadata().getLong("u32")).isEqualTo(0xFFFF_FFFFL);
        assertThat(f.metadata().getFloat("f32")).isEqualTo(1e-5f);
        assertThat(f.metadata().getString("string")).isEqualTo("Grüße, 世界 🦙\n\"quoted\"");
        // Without tensors there is no data section: the file ends right after the metadata.
        assertThat(f.dataStart()).isGreaterThanOrEqualTo(image.length);
        // Re-encoding what was read gives the same bytes.
        assertThat(GgufWriter.copyOf(f).toByteArray()).isEqualTo(image);
    }

    @Test
    void tensorsAreAlignedAndReadBackExactly() throws IOException {
        for (int alignment : new int[] {1, 8, 32, 64, 4096}) {
            GgufWriter w = new GgufWriter()
                    .putString("general.architecture", "test")
                    .putUInt32("general.alignment", alignment);
            List<byte[]> payloads = new ArrayList<>();
            Object[][] specs = {
                {"a", new long[] {5}, GgmlType.F32},
                {"b", new long[] {64, 3}, GgmlType.Q4_0},
                {"c", new long[] {32, 2, 3}, GgmlType.Q8_0},
                {"d", new long[] {3, 1, 2, 2}, GgmlType.F16},
                {"e", new long[] {7}, GgmlType.I8},
                {"f", new long[] {256}, GgmlType.Q6_K},
            };
            int seed = 1;
            for (Object[] s : specs) {
                long[] dims = (long[]) s[1];
                GgmlType type = (GgmlType) s[2];
                long n = 1;
                for (long d : dims) {
                    n *= d;
                }
                byte[] data = new byte[(int) type.bytesFor(n)];
                for (int i = 0; i < data.length; i++) {
                    data[i] = (byte) (i * 31 + seed);
                }
                seed++;
                payloads.add(data);
                w.addTensor((String) s[0], dims, type, data);
            }
            byte[] image = w.toByteArray();
            GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(image));
            assertThat(f.alignment()).isEqualTo(alignment);
            assertThat(f.dataStart() % alignment).isZero();
            assertThat(f.tensors()).isEqualTo(w.tensors());
            assertThat((long) image.length).isEqualTo(w.fileSize());
            long expectedOffset = 0;
            for (int i = 0; i < specs.length; i++) {
                GgufTensorInfo t = f.tensors().get(i);
                assertThat(t.name()).isEqualTo(specs[i][0]);
                assertThat(t.dims()).isEqualTo((long[]) specs[i][1]);
                assertThat(t.type()).isEqualTo(specs[i][2]);
                assertThat(t.offset()).as("llama.cpp's contiguous layout").isEqualTo(expectedOffset);
                expectedOffset += (t.byteSize() + alignment - 1) / alignment * alignment;
                assertThat(f.data(t).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(payloads.get(i));
            }
            assertThat((long) image.length)
                    .as("the last tensor is padded too")
                    .isEqualTo(f.dataStart() + expectedOffset);
        }
    }

    @Test
    void fileAndImageAreIdenticalAndFillersRunLazilyInOrder() throws IOException {
        List<String> calls = new ArrayList<>();
        GgufWriter w = new GgufWriter().putString("general.architecture", "test");
        for (String name : List.of("x", "y", "z")) {
            w.addTensor(name, new long[] {32, 4}, GgmlType.Q8_0, dst -> {
                calls.add(name);
                assertThat(dst.byteSize()).isEqualTo(4 * 34);
                for (long i = 0; i < dst.byteSize(); i++) {
                    dst.set(ValueLayout.JAVA_BYTE, i, (byte) (name.charAt(0) + i));
                }
            });
        }
        assertThat(calls).as("nothing is produced before writing").isEmpty();
        Path out = tmp.resolve("model.gguf");
        w.write(out);
        assertThat(calls).containsExactly("x", "y", "z");
        byte[] image = w.toByteArray();
        assertThat(Files.readAllBytes(out)).isEqualTo(image);
        try (GgufFile f = GgufFile.open(out)) {
            GgufTensorInfo y = f.tensor("y");
            assertThat(f.data(y).get(ValueLayout.JAVA_BYTE, 5)).isEqualTo((byte) ('y' + 5));
        }
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("model.gguf");
        }
    }

    @Test
    void aFailedWriteLeavesNoFileAndKeepsTheOldOne() throws IOException {
        GgufWriter w = new GgufWriter().putString("general.architecture", "test");
        w.addTensor("ok", new long[] {4}, GgmlType.F32, new byte[16]);
        w.addTensor("bad", new long[] {1 << 20}, GgmlType.F32, dst -> {
            throw new IOException("disk on fire");
        });
        Path fresh = tmp.resolve("fresh.gguf");
        assertThatThrownBy(() -> w.write(fresh)).isInstanceOf(IOException.class).hasMessage("disk on fire");
        assertThat(fresh).doesNotExist();

        Path existing = tmp.resolve("existing.gguf");
        Files.write(existing, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> w.write(existing)).isInstanceOf(IOException.class);
        assertThat(Files.readAllBytes(existing)).containsExactly(1, 2, 3);

        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("existing.gguf");
        }
    }

    @Test
    void tensorsLargerThanTheCopyBufferStreamIntact() throws IOException {
        int n = (3 << 20) + 5; // crosses several 1 MiB copy chunks and ends mid-chunk
        byte[] big = new byte[n];
        new java.util.Random(7).nextBytes(big);
        GgufWriter w = new GgufWriter().putString("general.architecture", "test");
        w.addTensor("heap", new long[] {n}, GgmlType.I8, big);
        w.addTensor(
                "filled",
                new long[] {n},
                GgmlType.I8,
                dst -> MemorySegment.copy(MemorySegment.ofArray(big), 0, dst, 0, n));
        Path out = tmp.resolve("big.gguf");
        w.write(out);
        try (GgufFile f = GgufFile.open(out)) {
            assertThat(f.fileSize()).isEqualTo(w.fileSize());
            for (GgufTensorInfo t : f.tensors()) {
                assertThat(f.data(t).mismatch(MemorySegment.ofArray(big)))
                        .as(t.name())
                        .isEqualTo(-1L);
            }
        }
        assertThat(Files.readAllBytes(out)).isEqualTo(w.toByteArray());
    }

    @Test
    void writeReplacesAnExistingFile() throws IOException {
        Path out = tmp.resolve("m.gguf");
        Files.write(out, new byte[] {9, 9, 9});
        GgufWriter w = new GgufWriter().putString("k", "v");
        w.write(out);
        assertThat(Files.readAllBytes(out)).isEqualTo(w.toByteArray());
    }

    @Test
    void writingIntoAMissingFolderFailsCleanly() {
        GgufWriter w = new GgufWriter().putString("k", "v");
        assertThatThrownBy(() -> w.write(tmp.resolve("no/such/dir/m.gguf"))).isInstanceOf(IOException.class);
    }

    @Test
    void putReplacesInPlace() throws IOException {
        GgufWriter w = new GgufWriter().putString("a", "1").putString("b", "2").putString("a", "3");
        GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(w.toByteArray()));
        assertThat(List.copyOf(f.metadata().keys())).containsExactly("a", "b");
        assertThat(f.metadata().getString("a")).isEqualTo("3");
    }

    @Test
    void refusesWhatCannotBeWrittenFaithfully() {
        GgufWriter w = new GgufWriter();
        w.addTensor("t", new long[] {4}, GgmlType.F32, new byte[16]);
        assertThatThrownBy(() -> w.addTensor("t", new long[] {4}, GgmlType.F32, new byte[16]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate tensor name 't'");
        assertThatThrownBy(() -> w.addTensor("u", new long[] {4}, GgmlType.F32, new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 16 bytes, but 15 were given");
        assertThatThrownBy(() -> w.addTensor("u", new long[] {33}, GgmlType.Q4_0, new byte[18]))
                .hasMessageContaining("not a multiple of the Q4_0 block size 32");
        assertThatThrownBy(() -> w.addTensor("u", new long[] {4, 0}, GgmlType.F32, new byte[0]))
                .hasMessageContaining("dimension 1 is 0");
        assertThatThrownBy(() -> w.addTensor("u", new long[] {1, 1, 1, 1, 1}, GgmlType.F32, new byte[4]))
                .hasMessageContaining("1 to 4 dimensions");
        assertThatThrownBy(() -> w.addTensor("u", new long[] {1L << 40, 1L << 40}, GgmlType.F32, new byte[4]))
                .hasMessageContaining("overflows");
        assertThatThrownBy(() -> w.addTensor("x".repeat(64), new long[] {1}, GgmlType.F32, new byte[4]))
                .hasMessageContaining("longer than 63 bytes");
        assertThatThrownBy(() -> w.putUInt32("general.alignment", 48)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> w.putInt32("general.alignment", 32)).hasMessageContaining("UINT32");
        assertThatThrownBy(() -> w.put("x", new GgufValue.IntValue(GgufValueType.UINT8, 256)))
                .hasMessageContaining("does not fit UINT8");
        assertThatThrownBy(() -> w.putUInt32("x", -1)).hasMessageContaining("does not fit UINT32");
        assertThatThrownBy(() -> w.put("x", new GgufValue.IntValue(GgufValueType.FLOAT32, 1)))
                .hasMessageContaining("cannot have type FLOAT32");
        assertThatThrownBy(() -> w.put("x", GgufValue.ArrayValue.ofLongs(GgufValueType.INT8, new long[] {300})))
                .hasMessageContaining("does not fit INT8");
        assertThatThrownBy(() -> w.putStringArray("x", java.util.Arrays.asList("a", null)))
                .hasMessageContaining("null");
        assertThatThrownBy(() -> w.put("", new GgufValue.BoolValue(true))).hasMessageContaining("empty");
        GgufValue.ArrayValue deep = GgufValue.ArrayValue.ofLongs(GgufValueType.INT32, new long[0]);
        for (int i = 0; i < GgufReader.MAX_ARRAY_DEPTH; i++) {
            deep = GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[] {deep});
        }
        GgufValue.ArrayValue tooDeep = deep;
        assertThatThrownBy(() -> w.put("x", tooDeep)).hasMessageContaining("nested deeper");
        assertThat(w.metadata().keys()).isEmpty();
    }

    @Test
    void deepestAllowedNestingRoundTrips() throws IOException {
        GgufValue.ArrayValue deep = GgufValue.ArrayValue.ofLongs(GgufValueType.INT32, new long[] {42});
        for (int i = 1; i < GgufReader.MAX_ARRAY_DEPTH; i++) {
            deep = GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[] {deep});
        }
        GgufWriter w = new GgufWriter().put("deep", deep);
        GgufFile f = GgufFile.fromSegment(MemorySegment.ofArray(w.toByteArray()));
        assertThat(f.metadata().getArray("deep").sameContent(deep)).isTrue();
    }
}
