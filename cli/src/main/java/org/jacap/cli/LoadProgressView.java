package org.jacap.cli;

import java.io.PrintWriter;
import java.util.Locale;
import org.jacap.engine.LoadListener;

/**
 * Shows how far loading a large model got: a bar redrawn in place on a terminal, or one line at
 * the start and one at the end when stderr is a file or pipe. Small files load too fast to bother.
 */
final class LoadProgressView implements LoadListener {
    static final long LARGE_FILE = 64L << 20;
    private static final int BAR = 30;

    private final PrintWriter err;
    private final boolean terminal;
    private final String name;
    private final long fileSize;
    private final boolean visible;
    private final long startNanos = System.nanoTime();
    private int shownPermille = -1;

    LoadProgressView(PrintWriter err, boolean terminal, String name, long fileSize) {
        this.err = err;
        this.terminal = terminal;
        this.name = name;
        this.fileSize = fileSize;
        this.visible = fileSize >= LARGE_FILE;
        if (visible && !terminal) {
            err.println("loading " + name + " (" + size(fileSize) + ") ...");
            err.flush();
        }
    }

    @Override
    public void onProgress(long done, long total, String what) {
        if (!visible || !terminal || total <= 0) {
            return;
        }
        int permille = (int) Math.min(1000, done * 1000 / total);
        if (permille / 5 == shownPermille / 5 && permille != 1000) {
            return; // redraw every half percent, not on every callback
        }
        shownPermille = permille;
        int filled = permille * BAR / 1000;
        err.print(String.format(
                Locale.ROOT,
                "\rloading %s [%s%s] %3d%% %s / %s",
                name,
                "#".repeat(filled),
                ".".repeat(BAR - filled),
                permille / 10,
                size(done),
                size(total)));
        err.flush();
    }

    /** Ends the progress display once the model is ready. */
    void finished() {
        if (!visible) {
            return;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        if (terminal) {
            err.print("\r\033[K"); // clear the bar's line
        }
        err.println(String.format(Locale.ROOT, "loaded %s (%s) in %.1f s", name, size(fileSize), seconds));
        err.flush();
    }

    static String size(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
    }
}
