package io.vte.cli.bench;

import io.vte.cli.VteMain;
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
record CliRun(int exit, String out, String err) {

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = VteMain.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }
}
