package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap bench}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "bench", description = "(not yet implemented)")
final class BenchCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'bench' is not implemented yet");
    }
}
