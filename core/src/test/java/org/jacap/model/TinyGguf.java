package org.jacap.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jacap.gguf.GgmlType;

/**
 * Writes small GGUF v3 files for tests (errors the fixtures cannot show: unknown architectures,
 * missing tensors, odd types). Metadata values: Integer (uint32), Float (float32), String,
 * String[] (array of strings), int[] (array of int32), float[] (array of float32).
 */
final class TinyGguf {
    private final Map<String, Object> metadata = new LinkedHashMap<>();
    private final List<Object[]> tensors = new ArrayList<>(); // name, dims, type, bytes

    TinyGguf put(String key, Object value) {
        metadata.put(key, value);
        return this;
    }

    TinyGguf remove(String key) {
        metadata.remove(key);
        return this;
    }

    /** An F32 tensor with N(0, std) values (dims as ggml ne: dims[0] is the row width). */
    TinyGguf f32(String name, Random rnd, double std, long... dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        ByteBuffer b = ByteBuffer.allocate((int) (4 * n)).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < n; i++) {
            b.putFloat((float) (rnd.nextGaussian() * std));
        }
        return raw(name, GgmlType.F32, b.array(), dims);
    }

    /** A tensor of N(0, std) values quantized to {@code type} by the simd reference quantizer. */
    TinyGguf quantized(String name, GgmlType type, Random rnd, double std, long... dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        float[] v = new float[Math.toIntExact(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (rnd.nextGaussian() * std);
        }
        return raw(name, type, org.jacap.simd.Quantize.toBytes(type, v), dims);
    }

    /** A norm weight of ones. */
    TinyGguf ones(String name, long n) {
        ByteBuffer b = ByteBuffer.allocate((int) (4 * n)).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < n; i++) {
            b.putFloat(1f);
        }
        return raw(name, GgmlType.F32, b.array(), n);
    }

    TinyGguf raw(String name, GgmlType type, byte[] data, long... dims) {
        tensors.removeIf(t -> t[0].equals(name));
        tensors.add(new Object[] {name, dims, type, data});
        return this;
    }

    TinyGguf removeTensor(String name) {
        tensors.removeIf(t -> t[0].equals(name));
        return this;
    }

    /** A llama model with random F32 weights; every dimension given explicitly. */
    static TinyGguf llama(int embd, int layers, int heads, int headsKv, int ff, int vocab, long seed) {
        return llama(embd, layers, heads, headsKv, ff, vocab, seed, GgmlType.F32);
    }

    /** As above with every matrix of {@code type}. */
    static TinyGguf llama(int embd, int layers, int heads, int headsKv, int ff, int vocab, long seed, GgmlType type) {
        Random rnd = new Random(seed);
        TinyGguf g = new TinyGguf();
        String[] tokens = new String[vocab];
        for (int i = 0; i < vocab; i++) {
            tokens[i] = "<t" + i + ">";
        }
        g.put("general.architecture", "llama")
                .put("general.name", "tiny-test")
                .put("llama.context_length", 128)
                .put("llama.embedding_length", embd)
                .put("llama.block_count", layers)
                .put("llama.feed_forward_length", ff)
                .put("llama.attention.head_count", heads)
                .put("llama.attention.head_count_kv", headsKv)
                .put("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .put("tokenizer.ggml.model", "llama")
                .put("tokenizer.ggml.tokens", tokens);
        int hd = embd / heads;
        g.matrix("token_embd.weight", type, rnd, 1.0, embd, vocab)
                .ones("output_norm.weight", embd)
                .matrix("output.weight", type, rnd, 0.1, embd, vocab);
        for (int l = 0; l < layers; l++) {
            String p = "blk." + l + ".";
            g.ones(p + "attn_norm.weight", embd)
                    .ones(p + "ffn_norm.weight", embd)
                    .matrix(p + "attn_q.weight", type, rnd, 0.1, embd, embd)
                    .matrix(p + "attn_k.weight", type, rnd, 0.1, embd, (long) hd * headsKv)
                    .matrix(p + "attn_v.weight", type, rnd, 0.1, embd, (long) hd * headsKv)
                    .matrix(p + "attn_output.weight", type, rnd, 0.1, embd, embd)
                    .matrix(p + "ffn_gate.weight", type, rnd, 0.1, embd, ff)
                    .matrix(p + "ffn_up.weight", type, rnd, 0.1, embd, ff)
                    .matrix(p + "ffn_down.weight", type, rnd, 0.1, ff, embd);
        }
        return g;
    }

    private TinyGguf matrix(String name, GgmlType type, Random rnd, double std, long... dims) {
        return type == GgmlType.F32 ? f32(name, rnd, std, dims) : quantized(name, type, rnd, std, dims);
    }

    Path write(Path file) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("GGUF".getBytes(StandardCharsets.US_ASCII));
        u32(out, 3);
        u64(out, tensors.size());
        u64(out, metadata.size());
        for (Map.Entry<String, Object> e : metadata.entrySet()) {
            str(out, e.getKey());
            switch (e.getValue()) {
                case Integer i -> {
                    u32(out, 4);
                    u32(out, i);
                }
                case Float f -> {
                    u32(out, 6);
                    u32(out, Float.floatToRawIntBits(f));
                }
                case String s -> {
                    u32(out, 8);
                    str(out, s);
                }
                case String[] a -> {
                    u32(out, 9);
                    u32(out, 8);
                    u64(out, a.length);
                    for (String s : a) {
                        str(out, s);
                    }
                }
                case int[] a -> {
                    u32(out, 9);
                    u32(out, 5);
                    u64(out, a.length);
                    for (int v : a) {
                        u32(out, v);
                    }
                }
                case float[] a -> {
                    u32(out, 9);
                    u32(out, 6);
                    u64(out, a.length);
                    for (float f : a) {
                        u32(out, Float.floatToRawIntBits(f));
                    }
                }
                default -> throw new IllegalArgumentException("unsupported metadata value " + e.getValue());
            }
        }
        long offset = 0;
        List<Long> offsets = new ArrayList<>();
        for (Object[] t : tensors) {
            offsets.add(offset);
            offset = align(offset + ((byte[]) t[3]).length);
        }
        for (int i = 0; i < tensors.size(); i++) {
            Object[] t = tensors.get(i);
            long[] dims = (long[]) t[1];
            str(out, (String) t[0]);
            u32(out, dims.length);
            for (long d : dims) {
                u64(out, d);
            }
            u32(out, ((GgmlType) t[2]).id());
            u64(out, offsets.get(i));
        }
        while (out.size() % 32 != 0) {
            out.write(0);
        }
        for (Object[] t : tensors) {
            byte[] data = (byte[]) t[3];
            out.writeBytes(data);
            while (out.size() % 32 != 0) {
                out.write(0);
            }
        }
        Files.write(file, out.toByteArray());
        return file;
    }

    private static long align(long x) {
        return (x + 31) / 32 * 32;
    }

    private static void u32(ByteArrayOutputStream out, int v) {
        out.writeBytes(
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
    }

    private static void u64(ByteArrayOutputStream out, long v) {
        out.writeBytes(
                ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    }

    private static void str(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        u64(out, b.length);
        out.writeBytes(b);
    }
}
