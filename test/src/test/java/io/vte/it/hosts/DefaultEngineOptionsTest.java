package io.vte.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Engines made with {@code new EngineOptions()} and nothing else take their soft devices from the
 * host's interfaces ({@code DefaultSoftDevices}) and serve the handshake on the first device's
 * address; and the README's first library example ({@link DefaultEnginesMain#writeOnce}) runs as
 * printed. The engines run in a namespace host ({@link DefaultEnginesMain} in a child JVM) whose
 * only interfaces are its veths and loopback, so the default choice is known in advance and no test
 * traffic reaches this machine's real interfaces. After the warm-up nothing logs a WARN or ERROR
 * but the intended exposure warning of an engine on a non-loopback address without auth.
 */
class DefaultEngineOptionsTest {

  private static final Path README = Path.of("../README.md").toAbsolutePath().normalize();

  /** A log line at WARN or ERROR, in the JUL or logback format. */
  private static final Pattern WARNING = Pattern.compile("\\b(WARN|WARNING|ERROR|SEVERE)\\b");

  /** The warning a node on a non-loopback address without auth logs by design (issue 42 item 5). */
  private static final String EXPOSURE = "listens on a non-loopback address without authentication";

  private static final Path EXAMPLE_SOURCE =
      Path.of("src/test/java/io/vte/it/hosts/DefaultEnginesMain.java");

  @Test
  void twoDefaultEnginesInAHostTakeItsInterfacesAndWriteAndReadAndTheReadmeExampleRuns()
      throws Exception {
    try (NetnsHosts hosts = NetnsHosts.up(1, 2)) {
      NetnsHosts.Host h = hosts.host(0);
      try (ChildJvm node =
          new ChildJvm(h.launcher(), DefaultEnginesMain.class.getName(), List.of())) {
        int exit = node.exitCode(Duration.ofSeconds(180));
        String what = "stdout " + node.out() + " stderr " + node.err();
        assertEquals(0, exit, what);
        JsonObject r = new JsonObject(node.out().get(node.out().size() - 1));
        List<String> specs = h.defaultDeviceSpecs(true);
        assertEquals(
            specs,
            r.getJsonArray("defaultSpecs").getList(),
            "the host's veths, rails then management: " + r);
        for (Object server : r.getJsonArray("servers")) {
          assertTrue(
              server.toString().startsWith(h.nics().get(0).address() + ":"),
              "handshake on the first device's address: " + r);
        }
        assertEquals(
            specs.stream().map(s -> s.substring(0, s.indexOf('@'))).toList(),
            r.getJsonArray("segmentDevices").getList(),
            "the peer's segment has one device per interface: " + r);
        assertEquals(true, r.getBoolean("write"), "complete and byte-exact: " + r);
        assertEquals(true, r.getBoolean("read"), "complete and byte-exact: " + r);
        assertEquals(true, r.getBoolean("readmeExample"), "complete and byte-exact: " + r);
        assertTrue(node.err().contains(DefaultEnginesMain.WARM), what);
        List<String> measured =
            node.err().subList(node.err().indexOf(DefaultEnginesMain.WARM), node.err().size());
        assertFalse(
            measured.stream().anyMatch(l -> l.contains("has been blocked")),
            "no blocked event loop after " + "the warm-up round: " + what);
        List<String> warnings = new ArrayList<>(node.out());
        warnings.addAll(measured);
        warnings.removeIf(l -> !WARNING.matcher(l).find());
        assertEquals(
            List.of(),
            warnings.stream().filter(l -> !l.contains(EXPOSURE)).toList(),
            "no WARN or ERROR but the exposure warning of a node on a veth without auth: " + what);
        assertEquals(
            3,
            warnings.size(),
            "the exposure warning once per engine: the two, then the README example's: " + what);
      }
    }
  }

  @Test
  void theReadmeLibraryExampleIsTheMethodTheHostRuns() throws IOException {
    assertEquals(
        exampleInSource(),
        exampleInReadme(),
        "README.md's first Java block is DefaultEnginesMain.writeOnce");
  }

  private static String exampleInSource() throws IOException {
    String src = Files.readString(EXAMPLE_SOURCE);
    String begin = "// README:library-example:begin\n";
    int from = src.indexOf(begin) + begin.length();
    return src.substring(from, src.indexOf("  // README:library-example:end", from))
        .lines()
        .map(l -> l.replaceFirst("^  ", ""))
        .map(String::stripTrailing)
        .reduce("", (x, y) -> x + y + "\n");
  }

  private static String exampleInReadme() throws IOException {
    Matcher m =
        Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(README));
    assertTrue(m.find(), "README.md has a java block");
    return m.group(1).lines().map(String::stripTrailing).reduce("", (x, y) -> x + y + "\n");
  }
}
