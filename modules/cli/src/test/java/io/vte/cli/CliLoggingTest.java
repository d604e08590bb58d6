package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The vte command logs through one configuration, conf/logback.xml, for SLF4J, System.Logger and
 * JUL alike.
 */
class CliLoggingTest {

  @Test
  void theLogbackFileOnTheClassPathIsConfLogbackXml() throws IOException {
    String conf =
        Files.readString(Path.of(System.getProperty("vte.project.dir"), "conf", "logback.xml"));
    try (InputStream in =
        CliLoggingTest.class.getClassLoader().getResourceAsStream("logback.xml")) {
      assertNotNull(in, "no logback.xml on the class path");
      assertEquals(conf, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void vteStateChangesShowAtInfoAndOthersOnlyFromWarn() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertTrue(ctx.getLogger("io.vte.metadata.etcd.EtcdMetadataStore").isInfoEnabled());
    assertEquals(Level.WARN, ctx.getLogger("io.grpc.netty.Utils").getEffectiveLevel());
    System.Logger vte = System.getLogger("io.vte.metadata.etcd.EtcdMetadataStore");
    assertTrue(
        vte.isLoggable(System.Logger.Level.INFO), "System.Logger goes to logback at its levels");
  }

  @Test
  void javaUtilLoggingGoesThroughSlf4jAtTheConfiguredLevels() {
    CliLogging.install();
    CliLogging.install(); // idempotent: one bridge
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    ch.qos.logback.classic.Logger grpc = ctx.getLogger("io.grpc.netty.Utils");
    grpc.addAppender(seen);
    try {
      java.util.logging.Logger jul = java.util.logging.Logger.getLogger("io.grpc.netty.Utils");
      jul.info("Epoll available during static init");
      jul.warning("a grpc warning");
      List<String> messages = seen.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertEquals(List.of("a grpc warning"), messages);
      assertEquals(
          1,
          java.util.Arrays.stream(
                  java.util.logging.LogManager.getLogManager().getLogger("").getHandlers())
              .filter(h -> h instanceof org.slf4j.bridge.SLF4JBridgeHandler)
              .count());
    } finally {
      grpc.detachAppender(seen);
    }
  }

  @Test
  void anUnreachableEtcdIsOneLineOnStderr(@TempDir Path dir) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path config = dir.resolve("vte.json");
    Files.writeString(
        config,
        "{\"metadataUri\": \"etcd://127.0.0.1:"
            + port
            + "\","
            + " \"metadata\": {\"startDeadlineMs\": 5000}}");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "io.vte.cli.VteMain",
                "serve",
                "--config",
                config.toString(),
                "--http-port",
                "0")
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(dir.resolve("err.txt").toFile())
            .start();
    try {
      assertTrue(
          p.waitFor(60, TimeUnit.SECONDS),
          "vte serve did not give up on an unreachable etcd within 60 s");
    } finally {
      p.destroyForcibly();
    }
    List<String> err = Files.readAllLines(dir.resolve("err.txt"));
    // One line about etcd, the command's own; other lines (say, a blocked-thread warning on a
    // loaded machine)
    // are not this test's concern.
    List<String> aboutEtcd =
        err.stream().filter(l -> l.contains("etcd") || l.contains("METADATA")).toList();
    assertEquals(1, aboutEtcd.size(), "stderr: " + err);
    assertTrue(
        aboutEtcd.get(0).startsWith("vte serve: METADATA_UNAVAILABLE")
            && aboutEtcd.get(0).contains("127.0.0.1:" + port),
        aboutEtcd.get(0));
    assertTrue(p.exitValue() != 0, "exit " + p.exitValue());
  }
}
