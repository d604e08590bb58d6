package io.vte.cli.bench;

import io.vte.testkit.ChildJvm;
import java.io.IOException;
import java.util.List;

/**
 * The {@code vte} command in a child JVM with this test's class path; its output is collected as it
 * comes.
 */
final class ChildVte extends ChildJvm {

  ChildVte(String... args) throws IOException {
    super(List.of(), "io.vte.cli.VteMain", List.of(args));
  }
}
