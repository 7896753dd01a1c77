package org.jacap.bench.perplexity;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jacap.JacapException;

/**
 * llama-perplexity's {@code --kl-divergence-base} file, so Jacap and llama.cpp can each read what the
 * other wrote. Little-endian throughout:
 *
 * <pre>
 *   "_logits_"              8 bytes
 *   n_ctx                   uint32
 *   n_vocab, n_chunk        int32, int32
 *   tokens                  int32 × n_ctx·n_chunk   (the text's tokens, BOS substitution not applied)
 *   per chunk, per scored token (n_ctx − 1 − n_ctx/2 of them), a row of 2·⌈n_vocab/2⌉ + 4 uint16:
 *     float scale, float min_log_prob   (the first 4 uint16)
 *     q[i] for each vocabulary entry: log p_i ≈ scale·q[i] + min_log_prob   (padding to even)
 * </pre>
 */
public final class LogitsFile {
    private static final byte[] MAGIC = "_logits_".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private LogitsFile() {}

    /** uint16 values per scored row. */
    public static int rowLength(int nVocab) {
        return 2 * ((nVocab + 1) / 2) + 4;
    }

    /** Header of a base file: its context, vocabulary, chunk count and tokens. */
    public record Header(int nCtx, int nVocab, int nChunk, int[] tokens) {}

    /** Writes a base file; rows are appended chunk by chunk. */
    public static final class Writer implements Closeable {
        private final OutputStream out;
        private final ByteBuffer row;

        public Writer(Path path, int nCtx, int nVocab, int nChunk, int[] tokens) throws IOException {
            out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 20);
            ByteBuffer head = ByteBuffer.allocate(8 + 12 + 4 * nCtx * nChunk).order(ByteOrder.LITTLE_ENDIAN);
            head.put(MAGIC).putInt(nCtx).putInt(nVocab).putInt(nChunk);
            for (int i = 0; i < nCtx * nChunk; i++) {
                head.putInt(tokens[i]);
            }
            out.write(head.array());
            row = ByteBuffer.allocate(2 * rowLength(nVocab)).order(ByteOrder.LITTLE_ENDIAN);
        }

        /** Appends one scored row (the quantized log-probabilities of one position). */
        public void write(QuantizedLogProbs q) throws IOException {
            row.clear();
            row.putFloat(q.scale()).putFloat(q.minLogProb());
            for (short v : q.values()) {
                row.putShort(v);
            }
            while (row.hasRemaining()) {
                row.putShort((short) 0);
            }
            out.write(row.array());
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /** Reads a base file: the header first, then rows in order. */
    public static final class Reader implements Closeable {
        private final DataInputStream in;
        private final Header header;
        private final byte[] row;
        private final Path path;

        public Reader(Path path) throws IOException {
            this.path = path;
            InputStream raw = new BufferedInputStream(Files.newInputStream(path), 1 << 20);
            in = new DataInputStream(raw);
            try {
                byte[] magic = new byte[8];
                in.readFully(magic);
                if (!java.util.Arrays.equals(magic, MAGIC)) {
                    throw new JacapException(path + " is not a llama.cpp logits file (no _logits_ magic)");
                }
                ByteBuffer b = ByteBuffer.wrap(in.readNBytes(12)).order(ByteOrder.LITTLE_ENDIAN);
                if (b.remaining() < 12) {
                    throw new EOFException();
                }
                int nCtx = b.getInt();
                int nVocab = b.getInt();
                int nChunk = b.getInt();
                if (nCtx < 4 || nVocab < 1 || nChunk < 1 || (long) nCtx * nChunk > 1L << 28) {
                    throw new JacapException(path + ": implausible header n_ctx=" + Integer.toUnsignedString(nCtx)
                            + " n_vocab=" + nVocab + " n_chunk=" + nChunk);
                }
                long expected = 20L + 4L * nCtx * nChunk + 2L * rowLength(nVocab) * (nCtx - 1 - nCtx / 2) * nChunk;
                long size = Files.size(path);
                if (size != expected) {
                    throw new JacapException(path + " has " + size + " bytes; its header (n_ctx=" + nCtx + ", n_vocab="
                            + nVocab + ", n_chunk=" + nChunk + ") needs " + expected);
                }
                ByteBuffer t = ByteBuffer.wrap(in.readNBytes(4 * nCtx * nChunk)).order(ByteOrder.LITTLE_ENDIAN);
                int[] tokens = new int[nCtx * nChunk];
                t.asIntBuffer().get(tokens);
                header = new Header(nCtx, nVocab, nChunk, tokens);
                row = new byte[2 * rowLength(nVocab)];
            } catch (EOFException e) {
                in.close();
                throw new JacapException(path + " is truncated");
            } catch (RuntimeException | IOException e) {
                in.close();
                throw e;
            }
        }

        public Header header() {
            return header;
        }

        /** Reads the next row into {@code out} (n_vocab values). */
        public QuantizedLogProbs next(short[] out) throws IOException {
            try {
                in.readFully(row);
            } catch (EOFException e) {
                throw new JacapException(path + " is truncated");
            }
            ByteBuffer b = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
            float scale = b.getFloat();
            float min = b.getFloat();
            b.asShortBuffer().get(out, 0, header.nVocab());
            return new QuantizedLogProbs(scale, min, out);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
