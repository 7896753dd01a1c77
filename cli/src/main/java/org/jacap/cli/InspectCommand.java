package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap inspect}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "inspect", description = "(not yet implemented)")
final class InspectCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'inspect' is not implemented yet");
    }
}
