package org.jacap.bench.eval;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Stream;
import org.jacap.JacapException;

/**
 * Where evaluation text comes from: UTF-8 files, or seeded synthetic stories without end.
 * A directory gives one document per regular file (sorted by name, hidden files skipped); a file
 * is split at lines reading {@code <|endoftext|>} (the TinyStories release format), or is one
 * document when it has none.
 */
public final class Documents {
    public static final String SEPARATOR = "<|endoftext|>";

    private Documents() {}

    public static List<String> read(Path path) throws IOException {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(path)) {
            try (Stream<Path> s = Files.list(path)) {
                s.filter(Files::isRegularFile)
                        .filter(p -> !p.getFileName().toString().startsWith("."))
                        .sorted()
                        .forEach(files::add);
            }
            if (files.isEmpty()) {
                throw new JacapException("no documents in " + path);
            }
        } else {
            files.add(path);
        }
        List<String> docs = new ArrayList<>();
        for (Path f : files) {
            for (String piece : split(utf8(f))) {
                if (!piece.isBlank()) {
                    docs.add(piece.strip());
                }
            }
        }
        if (docs.isEmpty()) {
            throw new JacapException("no text in " + path);
        }
        return docs;
    }

    /** Splits at lines that are exactly the separator. */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\r?\n", -1)) {
            if (line.strip().equals(SEPARATOR)) {
                out.add(current.toString());
                current.setLength(0);
            } else {
                current.append(line).append('\n');
            }
        }
        out.add(current.toString());
        return out;
    }

    /** Infinite, seeded TinyStories-like documents. */
    public static Iterator<String> synthetic(long seed) {
        SyntheticStories stories = new SyntheticStories(seed);
        return new Iterator<>() {
            private long next;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public String next() {
                return stories.story(next++);
            }
        };
    }

    /** Cycles through a finite list once (no repetition: repeated text would inflate retrieval). */
    public static Iterator<String> once(List<String> docs) {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < docs.size();
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return docs.get(next++);
            }
        };
    }

    private static String utf8(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new JacapException(file + " is not UTF-8 text");
        }
    }
}
