package org.jacap.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
            PullCommand.class,
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
        // Model metadata is UTF-8 (token pieces, names): print it as UTF-8 whatever the platform's stdout encoding.
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        System.exit(execute(out, err, args));
    }

    /** Runs the command line and returns the exit code; used by tests, never calls System.exit. */
    public static int execute(String... args) {
        return execute(null, null, args);
    }

    /** As {@link #execute(String...)}, printing to {@code out} and {@code err} (null: picocli's defaults). */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new JacapCli());
        cl.setExecutionExceptionHandler(new ErrorHandler());
        cl.setParameterExceptionHandler(new ParameterErrorHandler());
        if (out != null) {
            cl.setOut(out);
        }
        if (err != null) {
            cl.setErr(err);
        }
        try {
            return cl.execute(args);
        } finally {
            cl.getOut().flush();
            cl.getErr().flush();
        }
    }
}
