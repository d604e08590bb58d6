package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.testkit.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code vte serve} child JVM, started and awaited until it printed its server name and HTTP
 * endpoint. {@link #close()} kills it if it still runs.
 */
final class ServeNode implements AutoCloseable {

  private static final Pattern SERVER = Pattern.compile("vte serve: server (\\S+) segment (\\S+) ");
  private static final Pattern HTTP =
      Pattern.compile("vte serve: http://127\\.0\\.0\\.1:(\\d+)/metrics ");

  private final ChildJvm child;
  private final String server;
  private final String segment;
  private final int httpPort;

  /**
   * Starts {@code vte serve ARGS} and waits for its startup lines.
   *
   * @param args the arguments after {@code serve}
   */
  ServeNode(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("serve"));
    cmd.addAll(List.of(args));
    child = new ChildJvm(List.of(), VteMain.class.getName(), cmd);
    try {
      Await.until(
          "serve prints its server name and HTTP port",
          Duration.ofSeconds(60),
          () -> !child.process().isAlive() || HTTP.matcher(output()).find());
      Matcher m = SERVER.matcher(output());
      Matcher h = HTTP.matcher(output());
      assertTrue(child.process().isAlive() && m.find() && h.find(), "serve: " + output());
      server = m.group(1);
      segment = m.group(2);
      httpPort = Integer.parseInt(h.group(1));
    } catch (RuntimeException | AssertionError e) {
      child.close();
      throw e;
    }
  }

  /**
   * @return stdout and stderr so far, stdout first
   */
  String output() {
    return String.join("\n", child.out()) + "\n" + String.join("\n", child.err());
  }

  /**
   * @return the server name it printed
   */
  String server() {
    return server;
  }

  /**
   * @return the segment name it printed
   */
  String segment() {
    return segment;
  }

  /**
   * @return the HTTP port it printed
   */
  int httpPort() {
    return httpPort;
  }

  /**
   * @param path e.g. {@code /metrics}
   * @return the body of a GET of that path (any status)
   */
  String get(String path) throws IOException, InterruptedException {
    // HTTP/1.1: the JDK client's default h2c upgrade to this server once never got an answer
    HttpResponse<String> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30))
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return response.body();
  }

  /**
   * @return the child
   */
  ChildJvm child() {
    return child;
  }

  @Override
  public void close() {
    child.close();
  }
}
