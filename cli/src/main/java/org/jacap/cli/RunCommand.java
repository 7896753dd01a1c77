package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap run}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "run", description = "(not yet implemented)")
final class RunCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'run' is not implemented yet");
    }
}
