package org.jacap.bench.progress;

import java.io.PrintWriter;
import java.util.function.LongSupplier;
import org.jacap.bench.report.Units;

/**
 * A one-line text progress bar: {@code title [#########.........] 45%  45/100  eta 0:12  what}.
 * On a terminal it is redrawn in place ({@code \r}, at most ten times a second); into a file or
 * pipe it prints a plain line at most every ten seconds, so logs stay short. Thread-safe;
 * {@link #finish()} ends the display.
 */
public final class ProgressBar implements Progress {
    private static final int WIDTH = 24;
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final long LOG_NANOS = 10_000_000_000L;

    private final PrintWriter out;
    private final String title;
    private final boolean terminal;
    private final LongSupplier clock;
    private final long started;
    private long lastDraw;
    private int lastLength;
    private boolean drawn;

    /** @param terminal true when a person watches stderr (redraw in place), false for files and pipes */
    public ProgressBar(PrintWriter out, String title, boolean terminal) {
        this(out, title, terminal, System::nanoTime);
    }

    ProgressBar(PrintWriter out, String title, boolean terminal, LongSupplier clock) {
        this.out = out;
        this.title = title;
        this.terminal = terminal;
        this.clock = clock;
        this.started = clock.getAsLong();
        this.lastDraw = started;
    }

    @Override
    public synchronized void update(long done, long total, String what) {
        long now = clock.getAsLong();
        if (!terminal) {
            if (now - lastDraw >= LOG_NANOS) {
                lastDraw = now;
                out.println(line(done, total, what, now - started));
                out.flush();
            }
            return;
        }
        if (done < total && drawn && now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        String line = line(done, total, what, now - started);
        // Pad with spaces to wipe the tail of a longer previous line.
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
        drawn = true;
    }

    public synchronized void finish() {
        if (drawn) {
            out.println();
            out.flush();
            drawn = false;
        }
    }

    String line(long done, long total, String what, long elapsedNanos) {
        double fraction = total > 0 ? Math.min(1, (double) done / total) : 0;
        int filled = (int) Math.round(fraction * WIDTH);
        StringBuilder sb = new StringBuilder(title)
                .append(" [")
                .append("#".repeat(filled))
                .append(".".repeat(WIDTH - filled))
                .append("] ")
                .append(String.format(java.util.Locale.ROOT, "%3d%%", (int) Math.floor(fraction * 100)));
        sb.append("  ").append(count(done, total)).append('/').append(count(total, total));
        if (done > 0 && done < total) {
            long eta = (long) (elapsedNanos / 1e9 * (total - done) / done);
            sb.append("  eta ").append(clockTime(eta));
        } else if (done >= total) {
            sb.append("  ").append(clockTime(elapsedNanos / 1_000_000_000L));
        }
        if (what != null && !what.isEmpty()) {
            sb.append("  ").append(what);
        }
        return sb.toString();
    }

    /** Large totals (bytes) print in MiB, small ones as plain counts. */
    private static String count(long value, long total) {
        return total >= 10L << 20 ? Units.fixed(value / 1048576.0, 0) + "M" : Long.toString(value);
    }

    private static String clockTime(long seconds) {
        return seconds >= 3600
                ? String.format(java.util.Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                : String.format(java.util.Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}
