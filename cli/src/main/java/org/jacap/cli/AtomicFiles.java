package org.jacap.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.jacap.JacapException;

/** Writes a text file through a temporary sibling and a rename, so a failure never leaves half a file. */
final class AtomicFiles {
    private AtomicFiles() {}

    /** Fails with a message naming {@code target} (given as {@code option}) when it cannot be written. */
    static void checkWritable(Path target, String option) {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        String problem = null;
        if (Files.isDirectory(absolute)) {
            problem = "it is a folder";
        } else if (dir == null || !Files.isDirectory(dir)) {
            problem = "its folder " + dir + " does not exist";
        } else if (!Files.isWritable(dir)) {
            problem = "its folder " + dir + " is not writable";
        } else if (Files.exists(absolute) && !Files.isWritable(absolute)) {
            problem = "it is not writable";
        }
        if (problem != null) {
            throw new JacapException("cannot write " + option + " file " + target + ": " + problem);
        }
    }

    static void writeString(Path target, String text) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path tmp;
        try {
            tmp = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".part");
        } catch (IOException e) { // name the file the user asked for, not our temporary sibling
            String why = e instanceof java.nio.file.AccessDeniedException
                    ? "permission denied"
                    : e instanceof java.nio.file.NoSuchFileException ? "its folder does not exist" : e.toString();
            throw new IOException("cannot write " + target + ": " + why, e);
        }
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
