package io.vte.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One in-process run of the {@code vte} command line with captured output.
 *
 * @param exit exit code
 * @param out stdout
 * @param err stderr
 */
public record CliRun(int exit, String out, String err) {

  /**
   * @param args the command line
   * @return its exit code and captured output
   */
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = VteMain.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }
}
