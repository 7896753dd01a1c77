package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap tokenize}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "tokenize", description = "(not yet implemented)")
final class TokenizeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'tokenize' is not implemented yet");
    }
}
