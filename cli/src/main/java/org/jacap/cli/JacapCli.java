package org.jacap.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
            ServeCommand.class,
            PullCommand.class,
            TokenizeCommand.class,
            BenchCommand.class,
            EvalCommand.class,
            PerplexityCommand.class,
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
        int code = execute(out, err, args);
        awaitStderrFilter();
        System.exit(code);
    }

    /**
     * The launcher pipes fd 2 through a filter process (it drops the JVM's incubator warning) and
     * names it in {@code JACAP_STDERR_FILTER}: closing fd 2 ends its input, and waiting for it
     * means our last line is out before the caller sees us exit.
     */
    private static void awaitStderrFilter() {
        String pid = System.getenv("JACAP_STDERR_FILTER");
        if (pid == null || !pid.matches("\\d{1,10}")) {
            return;
        }
        System.err.flush();
        try {
            new FileOutputStream(FileDescriptor.err).close();
        } catch (IOException e) {
            return; // fd 2 stays open: the filter cannot finish before we do
        }
        ProcessHandle.of(Long.parseLong(pid)).ifPresent(filter -> {
            try {
                filter.onExit().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // exit anyway: at worst its last bytes come a moment later
            }
        });
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
