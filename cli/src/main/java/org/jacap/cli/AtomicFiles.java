package org.jacap.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes a text file through a temporary sibling and a rename, so a failure never leaves half a file. */
final class AtomicFiles {
    private AtomicFiles() {}

    static void writeString(Path target, String text) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path tmp = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".part");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
