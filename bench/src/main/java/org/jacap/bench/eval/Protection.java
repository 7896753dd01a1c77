package org.jacap.bench.eval;

/**
 * Tokens kept whatever their score: the first {@code sinks} positions and the last {@code recent}
 * positions of the context. They count inside the budget (docs/eviction-spec.md §6, honesty rule 3).
 */
public record Protection(int sinks, int recent) {
    public static final Protection NONE = new Protection(0, 0);

    public Protection {
        if (sinks < 0 || recent < 0) {
            throw new IllegalArgumentException("protection counts must be >= 0, got " + sinks + "," + recent);
        }
    }

    /** Parses {@code "N_SINK,N_RECENT"}, e.g. {@code "4,32"}. */
    public static Protection parse(String text) {
        String[] parts = text.split(",", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException("--protect expects N_SINK,N_RECENT (e.g. 4,32), got '" + text + "'");
        }
        try {
            return new Protection(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--protect expects two integers N_SINK,N_RECENT, got '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return sinks + "," + recent;
    }
}
