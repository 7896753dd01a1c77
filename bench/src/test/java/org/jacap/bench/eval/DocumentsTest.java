package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocumentsTest {
    @TempDir
    Path dir;

    /** One token per character, so the windows are easy to read. */
    private static int[] chars(String s) {
        return s.chars().map(c -> c - 'a' + 10).toArray();
    }

    @Test
    void windowsStartWithBosAndContinueAcrossDocuments() {
        Iterator<String> docs = List.of("abc", "defgh", "ij").iterator();
        List<int[]> w = TokenWindows.cut(docs, DocumentsTest::chars, 1, 4, 10);
        // stream: 1 a b c 1 d e f g h 1 i j → [1 a b c] [1 d e f] [1 g h | 1] ... (BOS prepended inside documents)
        assertThat(w).hasSize(3);
        assertThat(w.get(0)).containsExactly(1, 10, 11, 12);
        assertThat(w.get(1)).containsExactly(1, 13, 14, 15);
        assertThat(w.get(2)).containsExactly(1, 16, 17, 1);
    }

    @Test
    void windowCountIsCappedAndNoBosModelsWork() {
        List<int[]> w = TokenWindows.cut(Documents.synthetic(1), s -> chars("abcdefg"), 1, 3, 5);
        assertThat(w).hasSize(5);
        List<int[]> noBos = TokenWindows.cut(List.of("abcdef").iterator(), DocumentsTest::chars, -1, 3, 5);
        assertThat(noBos).hasSize(2);
        assertThat(noBos.get(1)).containsExactly(13, 14, 15);
    }

    @Test
    void filesSplitAtTheTinyStoriesSeparatorAndDirectoriesGiveOneDocumentPerFile() throws Exception {
        Path file = dir.resolve("stories.txt");
        Files.writeString(file, "One day.\n<|endoftext|>\nTwo days.\nMore.\n<|endoftext|>\n\n");
        assertThat(Documents.read(file)).containsExactly("One day.", "Two days.\nMore.");

        Path sub = Files.createDirectory(dir.resolve("docs"));
        Files.writeString(sub.resolve("b.txt"), "second");
        Files.writeString(sub.resolve("a.txt"), "first");
        Files.writeString(sub.resolve(".hidden"), "skip");
        assertThat(Documents.read(sub)).containsExactly("first", "second");
    }

    @Test
    void badInputsFailWithOneMessage() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertThatThrownBy(() -> Documents.read(empty))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("no documents");
        Path blank = Files.writeString(dir.resolve("blank.txt"), "  \n");
        assertThatThrownBy(() -> Documents.read(blank)).hasMessageContaining("no text");
        Path binary = Files.write(dir.resolve("bin.txt"), new byte[] {(byte) 0xC3, (byte) 0x28});
        assertThatThrownBy(() -> Documents.read(binary)).hasMessageContaining("is not UTF-8");
    }
}
