package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap eval}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "eval", description = "(not yet implemented)")
final class EvalCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'eval' is not implemented yet");
    }
}
