package org.jacap.cli;

import java.nio.file.Path;

/** Where generated files are cached: {@code $XDG_CACHE_HOME/jacap}, else {@code ~/.cache/jacap}. */
final class CacheDirectory {
    private CacheDirectory() {}

    static Path defaultPath() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("jacap");
    }
}
