package org.jacap.engine;

import java.util.List;

/**
 * Holds back output that could be the start of a stop string until it is resolved, so that a stop
 * string never reaches the caller, not even in part.
 */
final class StopStringFilter {
    private final List<String> stops;
    private final StringBuilder held = new StringBuilder();
    private boolean matched;

    StopStringFilter(List<String> stops) {
        this.stops = stops;
    }

    /** Adds decoded text; returns what can be shown now (text before a stop string once it matched). */
    String accept(String piece) {
        if (matched) {
            return "";
        }
        if (stops.isEmpty()) {
            return piece;
        }
        held.append(piece);
        int at = earliestMatch();
        if (at >= 0) {
            matched = true;
            String before = held.substring(0, at);
            held.setLength(0);
            return before;
        }
        int keep = longestPendingSuffix();
        String out = held.substring(0, held.length() - keep);
        held.delete(0, held.length() - keep);
        return out;
    }

    /** True once a stop string appeared in the output. */
    boolean matched() {
        return matched;
    }

    /** Releases the held text at the end of a generation (nothing after a match). */
    String flush() {
        String out = held.toString();
        held.setLength(0);
        return out;
    }

    private int earliestMatch() {
        int best = -1;
        for (String stop : stops) {
            int at = held.indexOf(stop);
            if (at >= 0 && (best < 0 || at < best)) {
                best = at;
            }
        }
        return best;
    }

    /** Length of the longest suffix of the held text that is a proper prefix of some stop string. */
    private int longestPendingSuffix() {
        int longest = 0;
        int n = held.length();
        for (String stop : stops) {
            for (int len = Math.min(n, stop.length() - 1); len > longest; len--) {
                if (heldEndsWith(stop, len)) {
                    longest = len;
                    break;
                }
            }
        }
        return longest;
    }

    /** Whether the held text ends with the first {@code len} chars of {@code stop}. */
    private boolean heldEndsWith(String stop, int len) {
        int base = held.length() - len;
        for (int i = 0; i < len; i++) {
            if (held.charAt(base + i) != stop.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
