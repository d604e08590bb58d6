package io.vte.cli;

import io.vte.cli.bench.BenchCommand;
import io.vte.cli.bench.verbs.VerbsBenchCommand;
import io.vte.cli.common.ExitCodes;
import io.vte.cli.scale.ScaleCommand;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vte} command: a picocli root whose subcommands are listed in {@link #SUBCOMMANDS}.
 * Errors are one clear line on stderr and an exit code of {@link ExitCodes} (the table the help's
 * footer prints).
 */
@Command(
    name = "vte",
    mixinStandardHelpOptions = true,
    version = "vte 0.1.0",
    description =
        "VTE, the Vert.x Transfer Engine: RDMA-style one-sided transfers between JVM processes.",
    footerHeading = "%nExit codes (every command):%n",
    footer = {
      "  0  success; serve and bench target: also a clean stop by SIGINT/SIGTERM",
      "  1  the run failed: failed transfers, data mismatch, stall, rail not ok",
      "  2  bad usage: unknown command or option, missing or bad value",
      "  3  could not start: bad config, engine, port, or peer not reachable"
    })
public final class VteMain implements Runnable {

  /** Every subcommand, in the order help lists them: add new ones here. */
  public static final List<Class<?>> SUBCOMMANDS =
      List.of(
          DevicesCommand.class,
          VerbsBenchCommand.class,
          BenchCommand.class,
          ServeCommand.class,
          LinksCommand.class,
          ScaleCommand.class,
          CommandLine.HelpCommand.class);

  /** Creates the root command (picocli instantiates it). */
  public VteMain() {}

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  /**
   * Builds the command line with every subcommand and the one-line error handlers.
   *
   * @return the configured command line
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new VteMain());
    for (Class<?> sub : SUBCOMMANDS) {
      cl.addSubcommand(sub);
    }
    HelpParagraphs.join(cl);
    HelpExamples.add(cl);
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          PrintWriter err = ex.getCommandLine().getErr();
          err.println(
              "vte: "
                  + ex.getMessage()
                  + " (see: "
                  + ex.getCommandLine().getCommandSpec().qualifiedName()
                  + " --help)");
          return ExitCodes.USAGE;
        });
    cl.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + oneLine(ex));
          return ex instanceof ExitCodes.CouldNotStart
              ? ExitCodes.COULD_NOT_START
              : ExitCodes.RUN_FAILED;
        });
    return cl;
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage();
    return (m == null || m.isBlank() ? e.getClass().getSimpleName() : m).replace('\n', ' ');
  }

  /**
   * Runs the command and exits with its code.
   *
   * @param args command-line arguments
   */
  public static void main(String[] args) {
    CliLogging.install();
    System.exit(commandLine().execute(args));
  }
}
