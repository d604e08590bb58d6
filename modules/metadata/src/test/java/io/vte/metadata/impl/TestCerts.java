package io.vte.metadata.impl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away CA with a server certificate for 127.0.0.1 and a client certificate, made with the
 * {@code openssl} command line (PEM, PKCS#8 keys).
 */
public final class TestCerts implements AutoCloseable {

  private final Path dir;

  private TestCerts(Path dir) {
    this.dir = dir;
  }

  /**
   * @return fresh certificates in a temporary directory
   */
  public static TestCerts create() {
    try {
      TestCerts c = new TestCerts(Files.createTempDirectory("vte-certs-"));
      c.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=vte-test-ca",
          "-keyout", "ca.key", "-out", "ca.pem");
      for (String who : List.of("server", "client")) {
        c.openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=vte-" + who, "-keyout", who + ".key",
            "-out", who + ".csr");
        Files.writeString(c.dir.resolve(who + ".ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
            + "extendedKeyUsage=" + (who.equals("server") ? "serverAuth,clientAuth" : "clientAuth") + "\n");
        c.openssl("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", who + ".ext", "-out", who + ".pem");
      }
      return c;
    } catch (IOException e) {
      throw new AssertionError("cannot make certificates: " + e, e);
    }
  }

  /** @param name file name, e.g. {@code ca.pem} @return its path */
  public Path file(String name) {
    return dir.resolve(name);
  }

  private void openssl(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes());
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError("openssl " + cmd + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
