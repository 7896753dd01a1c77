package org.jacap.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A subcommand with {@code -h, --help} and no {@code --version} ({@code mixinStandardHelpOptions}
 * would add both): its command spec and the help flag, which picocli lists first because a
 * superclass's options come before the subclass's.
 */
abstract class HelpedCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;
}
