package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.ChildJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code vte} command in a child JVM with this test's class path; its output is collected as it
 * comes.
 */
final class ChildVte extends ChildJvm {

  ChildVte(String... args) throws IOException {
    super(List.of(), "io.vte.cli.VteMain", List.of(args));
  }

  /**
   * @param bufferBytes the target's buffer
   * @param extra more flags
   * @return {@code vte bench target --devices 2 --json --buffer-size bufferBytes extra...}, started
   */
  static ChildVte benchTarget(long bufferBytes, String... extra) throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "target",
                "--devices",
                "2",
                "--json",
                "--buffer-size",
                String.valueOf(bufferBytes)));
    args.addAll(List.of(extra));
    return new ChildVte(args.toArray(String[]::new));
  }

  /**
   * @param target the target's server or segment name
   * @param extra more flags
   * @return {@code vte bench initiator --devices 2 --target target --handshake-timeout 30
   *     extra...}, started
   */
  static ChildVte benchInitiator(String target, String... extra) throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "initiator",
                "--devices",
                "2",
                "--target",
                target,
                "--handshake-timeout",
                "30"));
    args.addAll(List.of(extra));
    return new ChildVte(args.toArray(String[]::new));
  }

  /**
   * @param deadline how long the target may take to start
   * @return the JSON line a {@code --json} target announces itself with; fails naming its stderr
   *     when none comes in time
   */
  JsonObject announce(Duration deadline) throws InterruptedException {
    String line = firstLine(deadline);
    assertNotNull(line, "target stderr: " + err());
    return new JsonObject(line);
  }
}
