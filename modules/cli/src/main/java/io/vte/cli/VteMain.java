package io.vte.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vte} command: a picocli root whose subcommands are listed in {@link #SUBCOMMANDS}. Errors are
 * one clear line on stderr and a non-zero exit code (2 for bad usage, 1 for a failed run).
 */
@Command(name = "vte", mixinStandardHelpOptions = true, version = "vte 0.1.0",
    description = "VTE, the Vert.x Transfer Engine: RDMA-style one-sided transfers between JVM processes.")
public final class VteMain implements Runnable {

  /** Every subcommand, in the order help lists them: add new ones here. */
  public static final List<Class<?>> SUBCOMMANDS = List.of(DevicesCommand.class, VerbsBenchCommand.class, BenchCommand.class,
      ServeCommand.class, LinksCommand.class);

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
    cl.setParameterExceptionHandler((ex, args) -> {
      PrintWriter err = ex.getCommandLine().getErr();
      err.println("vte: " + ex.getMessage() + " (see: " + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help)");
      return CommandLine.ExitCode.USAGE;
    });
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + oneLine(ex));
      return CommandLine.ExitCode.SOFTWARE;
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
