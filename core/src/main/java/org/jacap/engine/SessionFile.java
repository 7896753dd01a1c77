package org.jacap.engine;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.ModelConfig;
import org.jacap.tokenizer.ChatMessage;

/**
 * The file a {@link Session} is saved to: a header naming the model it belongs to, the chat
 * history, the tokens, and every KV-cache row (keys and values as raw float bits, so a restored
 * session continues exactly as the saved one would have). Big-endian, versioned; written to a
 * temporary file and moved into place so a crash never leaves half a file under the name.
 */
final class SessionFile {
    private static final long MAGIC = 0x4A41434150534553L; // "JACAPSES"
    private static final int VERSION = 1;

    /** What a session holds besides its options. */
    record Content(
            List<ChatMessage> messages, int[] tokens, int lastTurnStart, boolean holdsRawText, InferenceState state) {}

    private SessionFile() {}

    static void write(Path file, Engine engine, Content c) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
                out.writeLong(MAGIC);
                out.writeInt(VERSION);
                writeString(out, identity(engine));
                out.writeInt(c.messages().size());
                for (ChatMessage m : c.messages()) {
                    writeString(out, m.role());
                    writeString(out, m.content());
                }
                out.writeInt(c.tokens().length);
                for (int t : c.tokens()) {
                    out.writeInt(t);
                }
                out.writeInt(c.lastTurnStart());
                out.writeBoolean(c.holdsRawText());
                InferenceState state = c.state();
                out.writeInt(state.position());
                KvCache cache = state.kvCache();
                for (int l = 0; l < cache.layers(); l++) {
                    for (int g = 0; g < cache.kvHeads(); g++) {
                        int n = cache.length(l, g);
                        out.writeInt(n);
                        ByteBuffer rows = ByteBuffer.allocate(n * (4 + 4 * (cache.keyDim() + cache.valueDim())));
                        rows.asIntBuffer().put(cache.positions(l, g), 0, n);
                        rows.position(n * 4);
                        rows.slice().asFloatBuffer().put(cache.keys(l, g), 0, n * cache.keyDim());
                        rows.position(n * 4 + n * 4 * cache.keyDim());
                        rows.slice().asFloatBuffer().put(cache.values(l, g), 0, n * cache.valueDim());
                        out.write(rows.array());
                    }
                }
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Reads {@code file} into {@code state} (which must be empty) and returns the rest. */
    static Content read(Path file, Engine engine, InferenceState state, long positionLimit) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            if (in.readLong() != MAGIC) {
                throw new JacapException("not a jacap session file: " + file);
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw new JacapException(
                        "session file " + file + " has version " + version + "; this jacap reads " + VERSION);
            }
            String saved = readString(in);
            String ours = identity(engine);
            if (!saved.equals(ours)) {
                throw new JacapException("session file " + file + " was saved with " + saved + ", not " + ours);
            }
            int count = count(in, file);
            List<ChatMessage> messages = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                messages.add(new ChatMessage(readString(in), readString(in)));
            }
            int[] tokens = new int[count(in, file)];
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = in.readInt();
            }
            if (tokens.length > positionLimit) {
                throw new JacapException("session file " + file + " holds " + tokens.length
                        + " tokens, more than this session's context of " + positionLimit);
            }
            int lastTurnStart = in.readInt();
            boolean holdsRawText = in.readBoolean();
            int position = in.readInt();
            if (position < 0 || position > tokens.length || lastTurnStart > tokens.length) {
                throw new JacapException("session file " + file + " is damaged (position " + position + ")");
            }
            KvCache cache = state.kvCache();
            int kd = cache.keyDim();
            int vd = cache.valueDim();
            float[] k = new float[kd];
            float[] v = new float[vd];
            for (int l = 0; l < cache.layers(); l++) {
                for (int g = 0; g < cache.kvHeads(); g++) {
                    int n = count(in, file);
                    if (n > position) {
                        throw new JacapException("session file " + file + " is damaged (" + n + " cache rows)");
                    }
                    byte[] bytes = new byte[n * (4 + 4 * (kd + vd))];
                    in.readFully(bytes);
                    ByteBuffer rows = ByteBuffer.wrap(bytes);
                    int[] positions = new int[n];
                    rows.asIntBuffer().get(positions);
                    var keys = rows.position(n * 4).slice().asFloatBuffer();
                    var values = rows.position(n * 4 + n * 4 * kd).slice().asFloatBuffer();
                    cache.reserve(l, g, n);
                    for (int r = 0; r < n; r++) {
                        keys.get(k);
                        values.get(v);
                        try {
                            cache.append(l, g, positions[r], k, 0, v, 0);
                        } catch (IllegalArgumentException e) {
                            throw new JacapException("session file " + file + " is damaged (cache positions)", e);
                        }
                    }
                }
            }
            if (in.read() != -1) {
                throw new JacapException("session file " + file + " is damaged (data after the cache)");
            }
            state.setPosition(position);
            return new Content(messages, tokens, lastTurnStart, holdsRawText, state);
        } catch (EOFException e) {
            throw new JacapException("session file " + file + " is truncated", e);
        }
    }

    /** The model a file belongs to: its name, architecture, shape, size and precision. */
    private static String identity(Engine engine) throws IOException {
        ModelConfig c = engine.config();
        return "'" + engine.path().getFileName() + "' (" + c.architecture() + ", " + c.blockCount() + " layers, "
                + c.headCountKv() + "x" + c.keyLength() + "/" + c.valueLength() + " KV, vocabulary " + c.vocabSize()
                + ", " + Files.size(engine.path()) + " bytes, "
                + engine.options().precision() + " precision)";
    }

    private static int count(DataInputStream in, Path file) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 28) {
            throw new JacapException("session file " + file + " is damaged (count " + n + ")");
        }
        return n;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 28) {
            throw new JacapException("damaged session file (string of " + n + " bytes)");
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }
}
