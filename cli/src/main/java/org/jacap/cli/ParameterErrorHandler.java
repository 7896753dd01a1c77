package org.jacap.cli;

import picocli.CommandLine;

/**
 * A bad command line (unknown flag, missing or malformed value, conflicting flags) ends in one line
 * naming the problem and pointing at {@code --help}, never a usage dump or a stack trace.
 */
final class ParameterErrorHandler implements CommandLine.IParameterExceptionHandler {

    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String message = ex.getMessage() == null ? "bad command line" : ex.getMessage();
        message = message.replaceFirst("^Error: ", "").replaceAll("\\s+", " ").strip();
        String command = cl.getCommandSpec().qualifiedName();
        cl.getErr().println("jacap: " + message + " (see '" + command + " --help')");
        return ErrorHandler.USER_ERROR;
    }
}
