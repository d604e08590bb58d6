package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.ChildJvm;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vte serve} as a child process (metrics, health, links against it, SIGTERM) and their error
 * lines. Every engine here, the probing engine of {@code links} too, runs on loopback devices
 * ({@link #LOOPBACK}): without devices it would take this machine's real interfaces.
 */
class ServeAndLinksCommandTest {

  private static final Pattern SERVER = Pattern.compile("vte serve: server (\\S+) segment (\\S+) ");
  private static final Pattern HTTP =
      Pattern.compile("vte serve: http://127\\.0\\.0\\.1:(\\d+)/metrics ");

  /** Engine options with one loopback device, for runs whose engines are not the point. */
  private static final String LOOPBACK =
      "{\"devices\": [\"lp0@127.0.0.1\"], \"workersPerContext\": 1}";

  @TempDir Path dir;

  private Path log;

  private String lastLines() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  private Path config(String json) throws IOException {
    Path file = dir.resolve("node-" + System.nanoTime() + ".json");
    Files.writeString(file, json);
    return file;
  }

  @Test
  void serveRunsUntilSigtermAndLinksProbesEveryRailOfIt() throws Exception {
    Path conf =
        config("{\"devices\": [\"sa0@127.0.0.1\", \"sa1@127.0.0.1\"], \"workersPerContext\": 1}");
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    log = dir.resolve("serve.log");
    Process node =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "io.vte.cli.VteMain",
                "serve",
                "--config",
                conf.toString(),
                "--http-port",
                "0",
                "--pool-size",
                "65536")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      // a file, not the pipe: Process.destroy() closes the pipes while the node is still printing
      // its shutdown
      Await.until(
          "serve prints its server name and HTTP port",
          Duration.ofSeconds(60),
          () -> !node.isAlive() || HTTP.matcher(lastLines()).find());
      assertTrue(node.isAlive(), "serve exited early: " + lastLines());
      Matcher m = SERVER.matcher(lastLines());
      Matcher h = HTTP.matcher(lastLines());
      assertTrue(m.find() && h.find(), lastLines());
      String server = m.group(1);
      int port = Integer.parseInt(h.group(1));

      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode(), health.body());
      assertEquals(server, new JsonObject(health.body()).getString("serverName"));

      String probe = config(LOOPBACK).toString();
      CliRun links = CliRun.of("links", "--target", server, "--config", probe, "--json");
      assertEquals(0, links.exit(), links.err() + links.out());
      JsonObject report = new JsonObject(links.out().trim());
      assertEquals(2, report.getJsonArray("remoteDevices").size());
      assertEquals(
          2, report.getJsonArray("rails").size(), "the probe engine has one device: 1 x 2 rails");
      for (Object o : report.getJsonArray("rails")) {
        JsonObject rail = (JsonObject) o;
        assertEquals("ok", rail.getString("status"), rail.encode());
        assertTrue(rail.getDouble("latencyUs") > 0 && rail.getDouble("firstUs") > 0, rail.encode());
      }
      CliRun table = CliRun.of("links", "--target", server, "--config", probe);
      assertEquals(0, table.exit(), table.err());
      assertTrue(table.out().contains("2 rail(s), 0 not ok"), table.out());

      HttpResponse<String> metrics =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertTrue(
          metrics.body().contains("vte_owner_handshakes_passive_total"),
          "metrics of the served node");

      long stopAt = System.nanoTime();
      node.destroy(); // SIGTERM
      assertTrue(node.waitFor(5, TimeUnit.SECONDS), "serve did not exit within 5 s of SIGTERM");
      assertEquals(0, node.exitValue(), "exit code after SIGTERM; output: " + lastLines());
      assertTrue(lastLines().contains("vte serve: stopped"), lastLines());
      System.out.printf(
          "serve: exit 0 %.0f ms after SIGTERM%n", (System.nanoTime() - stopAt) / 1e6);
    } finally {
      node.destroyForcibly();
    }
  }

  @Test
  void serveTakesTheVerticleKeysOfItsConfigFileUnlessAFlagOverridesThem() throws Exception {
    int free;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      free = probe.getLocalPort();
    }
    String node =
        "{\"devices\": [\"sk0@127.0.0.1\"], \"workersPerContext\": 1, \"httpPort\": "
            + free
            + ", \"httpHost\": \"127.0.0.1\", \"address\": \"vte.filed\"}";
    try (ServeNode serve = new ServeNode("--config", config(node).toString())) {
      assertEquals(free, serve.httpPort(), "httpPort of the file: " + serve.output());
      assertTrue(serve.get("/metrics").contains("vte_"), "the metrics endpoint on the file's port");
    }
    try (ServeNode serve = new ServeNode("--config", config(node).toString(), "--http-port", "0")) {
      assertTrue(serve.httpPort() != free, "--http-port 0 overrides the file");
    }
    try (ChildJvm bad =
        new ChildJvm(
            List.of(),
            VteMain.class.getName(),
            List.of(
                "serve",
                "--config",
                config("{\"devices\": [\"sk1@127.0.0.1\"], \"httpPort\": \"80\"}").toString()))) {
      assertEquals(3, bad.exitCode(Duration.ofSeconds(60)), String.join("\n", bad.err()));
      assertTrue(String.join("\n", bad.err()).contains("'httpPort'"), bad.err().toString());
    }
  }

  @Test
  void badConfigAndBusyPortAreOneClearLineAndNonZeroExit() throws Exception {
    CliRun missing =
        CliRun.of("serve", "--config", dir.resolve("nope.json").toString(), "--http-port", "0");
    assertEquals(3, missing.exit(), missing.err());
    assertEquals(1, missing.err().lines().count(), missing.err());
    assertTrue(missing.err().contains("nope.json"), missing.err());

    CliRun badKey =
        CliRun.of(
            "serve", "--config", config("{\"sliceSize\": 12}").toString(), "--http-port", "0");
    assertEquals(3, badKey.exit(), badKey.err());
    assertEquals(1, badKey.err().lines().count(), badKey.err());
    assertTrue(badKey.err().contains("sliceSize") && badKey.err().contains("12"), badKey.err());

    CliRun notJson =
        CliRun.of("serve", "--config", config("devices: soft").toString(), "--http-port", "0");
    assertEquals(3, notJson.exit(), notJson.err());
    assertTrue(notJson.err().contains("not a JSON object"), notJson.err());

    try (ServerSocket busy = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      CliRun inUse =
          CliRun.of(
              "serve",
              "--config",
              config(LOOPBACK).toString(),
              "--http-port",
              Integer.toString(busy.getLocalPort()));
      assertEquals(3, inUse.exit(), inUse.err());
      assertEquals(1, inUse.err().lines().count(), inUse.err());
      assertTrue(inUse.err().contains(Integer.toString(busy.getLocalPort())), inUse.err());
    }

    CliRun unreachable =
        CliRun.of(
            "links",
            "--target",
            "127.0.0.1:1",
            "--config",
            config(LOOPBACK).toString(),
            "--timeout-ms",
            "2000");
    assertEquals(3, unreachable.exit(), unreachable.err());
    assertEquals(1, unreachable.err().lines().count(), unreachable.err());
    assertTrue(
        unreachable.err().contains("PEER_UNREACHABLE") && unreachable.err().contains("127.0.0.1:1"),
        unreachable.err());

    CliRun badBytes =
        CliRun.of(
            "links",
            "--target",
            "127.0.0.1:1",
            "--config",
            config(LOOPBACK).toString(),
            "--bytes",
            "0");
    assertEquals(2, badBytes.exit(), badBytes.err());
    assertTrue(badBytes.err().contains("--bytes 0"), badBytes.err());
    CliRun badPort = CliRun.of("serve", "--http-port", "70000");
    assertEquals(2, badPort.exit(), badPort.err());
    assertTrue(badPort.err().startsWith("vte: --http-port 70000"), badPort.err());
  }
}
