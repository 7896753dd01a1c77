package org.jacap.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
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
        // Straight to file descriptor 1, not through System.out: PrintStream swallows a broken pipe's
        // IOException, so checkError() never saw that stdout's reader had gone and a run went on.
        PrintWriter out = new PrintWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        System.exit(execute(out, err, args));
    }

    /**
     * Runs the command line and returns the exit code (141 when stdout failed, as after SIGPIPE);
     * used by tests, never calls System.exit.
     */
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
        int code;
        try {
            code = cl.execute(args);
        } catch (Error e) { // picocli's handler sees Exceptions only: out-of-memory and friends end here
            code = ErrorHandler.report(e, cl.getErr());
        } finally {
            cl.getOut().flush();
            cl.getErr().flush();
        }
        // stdout's reader went away (e.g. | head): end as a process killed by SIGPIPE would, silently.
        return cl.getOut().checkError() ? ErrorHandler.BROKEN_PIPE : code;
    }
}
