package org.jacap.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jacap.JacapException;

/**
 * Reads a text file that must be UTF-8, at most {@link #MAX_BYTES}; a bad byte is reported by its
 * offset (the JDK says only "Input length = 1").
 */
final class Utf8Text {
    private Utf8Text() {}

    /** Far above any context's worth of text; it keeps {@code -f /dev/zero} from filling the heap. */
    static final int MAX_BYTES = 64 << 20;

    static String read(Path file, String what) throws IOException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) { // streams too: -f <(...) and /dev/stdin work
            bytes = in.readNBytes(MAX_BYTES + 1);
        }
        if (bytes.length > MAX_BYTES) {
            throw new JacapException(what + " " + file + " is larger than " + (MAX_BYTES >> 20) + " MiB");
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = decoder.decode(in, out, true);
        if (r.isError()) {
            throw new JacapException(what + " " + file + " is not UTF-8 text (bad byte 0x"
                    + String.format("%02x", bytes[in.position()] & 0xFF) + " at offset " + in.position() + ")");
        }
        decoder.flush(out);
        return out.flip().toString();
    }
}
