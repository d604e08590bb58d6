package io.vte.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway certificate authority made with the {@code openssl} command line in a temporary
 * directory: the CA and, for each identity asked for, a key and a certificate it signed for
 * 127.0.0.1 and localhost, good for both server and client authentication (PEM, PKCS#8 keys).
 * Closing deletes the directory.
 */
public final class TestPki implements AutoCloseable {

  private final Path dir;

  private TestPki(Path dir) {
    this.dir = dir;
  }

  /**
   * Makes a CA and the certificates of the given identities.
   *
   * @param identities names of the certificates to sign, e.g. {@code server} and {@code client}
   * @return the fresh CA
   * @throws AssertionError when openssl fails
   */
  public static TestPki create(String... identities) {
    try {
      TestPki pki = new TestPki(Files.createTempDirectory("vte-pki-"));
      pki.openssl(
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "2",
          "-subj",
          "/CN=vte-test-ca",
          "-keyout",
          "ca.key",
          "-out",
          "ca.pem");
      for (String identity : identities) {
        pki.sign(identity);
      }
      return pki;
    } catch (IOException e) {
      throw new AssertionError("cannot make certificates: " + e, e);
    }
  }

  private void sign(String identity) throws IOException {
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=vte-" + identity,
        "-keyout",
        identity + ".key",
        "-out",
        identity + ".csr");
    Files.writeString(
        dir.resolve(identity + ".ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n" + "extendedKeyUsage=serverAuth,clientAuth\n",
        StandardCharsets.US_ASCII);
    openssl(
        "x509",
        "-req",
        "-in",
        identity + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        identity + ".ext",
        "-out",
        identity + ".pem");
  }

  /**
   * The CA's certificate, to trust.
   *
   * @return its PEM file
   */
  public Path caCert() {
    return dir.resolve("ca.pem");
  }

  /**
   * An identity's certificate.
   *
   * @param identity a name given to {@link #create}
   * @return its PEM file
   */
  public Path cert(String identity) {
    return dir.resolve(identity + ".pem");
  }

  /**
   * An identity's private key.
   *
   * @param identity a name given to {@link #create}
   * @return its PEM file (PKCS#8)
   */
  public Path key(String identity) {
    return dir.resolve(identity + ".key");
  }

  /**
   * The directory the files are in, for a test that adds its own (it is deleted on close).
   *
   * @return the directory
   */
  public Path dir() {
    return dir;
  }

  private void openssl(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new AssertionError("openssl " + String.join(" ", args) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Deletes the CA's directory and every file in it.
   *
   * @throws IOException when the directory cannot be walked
   */
  @Override
  public void close() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
