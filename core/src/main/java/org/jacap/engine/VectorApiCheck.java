package org.jacap.engine;

import java.util.Optional;
import org.jacap.JacapException;

/**
 * The kernels need the incubating Vector API, which the JVM only resolves when asked to. Without
 * it the first kernel class fails with a bare {@link NoClassDefFoundError}; this check turns that
 * into one message naming the flag, before any kernel class is touched.
 */
final class VectorApiCheck {
    static final String MODULE = "jdk.incubator.vector";

    private VectorApiCheck() {}

    static void require() {
        require(ModuleLayer.boot().findModule(MODULE));
    }

    static void require(Optional<Module> vectorModule) {
        if (vectorModule.isEmpty()) {
            throw new JacapException("the Java Vector API is not enabled: start the JVM with --add-modules " + MODULE
                    + " (and a JDK 25 or newer)");
        }
    }
}
