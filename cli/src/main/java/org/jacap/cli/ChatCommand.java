package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code jacap chat}: not yet implemented (placeholder owned by the issue that builds it). */
@Command(name = "chat", description = "(not yet implemented)")
final class ChatCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new org.jacap.JacapException("'chat' is not implemented yet");
    }
}
