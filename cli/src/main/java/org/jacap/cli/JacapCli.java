package org.jacap.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code jacap} command: one subcommand per file in this package. */
@Command(
        name = "jacap",
        mixinStandardHelpOptions = true,
        version = "jacap 0.1.0",
        description = "Pure-Java CPU LLM runtime with capacity-aware KV-cache eviction.",
        subcommands = {
            InspectCommand.class,
            RunCommand.class,
            ChatCommand.class,
            TokenizeCommand.class,
            BenchCommand.class,
            EvalCommand.class,
            CommandLine.HelpCommand.class
        })
public final class JacapCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code; used by tests, never calls System.exit. */
    public static int execute(String... args) {
        return execute(StandardStreams.stdout(), StandardStreams.stderr(), args);
    }

    /** Same, writing to the given streams (tests capture them). */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new JacapCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(new ErrorHandler());
        cl.setParameterExceptionHandler(new ParameterErrorHandler());
        try {
            return cl.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }
}
