package io.vte.handshake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A throwaway CA and a server certificate for 127.0.0.1/localhost, made with openssl at test time. */
final class TestCertificates {

  final Path caCert;
  final Path serverKey;
  final Path serverCert;

  private TestCertificates(Path caCert, Path serverKey, Path serverCert) {
    this.caCert = caCert;
    this.serverKey = serverKey;
    this.serverCert = serverCert;
  }

  /**
   * @param dir an empty temporary directory
   * @param name prefix of the files, so several CAs can share a directory
   */
  static TestCertificates create(Path dir, String name) throws IOException, InterruptedException {
    Path caKey = dir.resolve(name + "-ca.key");
    Path caCert = dir.resolve(name + "-ca.pem");
    Path serverKey = dir.resolve(name + "-server.key");
    Path csr = dir.resolve(name + "-server.csr");
    Path serverCert = dir.resolve(name + "-server.pem");
    Path ext = dir.resolve(name + "-ext.cnf");
    Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n", StandardCharsets.US_ASCII);
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(), "-out", caCert.toString(),
        "-days", "1", "-subj", "/CN=" + name + "-test-ca");
    openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", serverKey.toString(), "-out", csr.toString(),
        "-subj", "/CN=localhost");
    openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey", caKey.toString(),
        "-CAcreateserial", "-out", serverCert.toString(), "-days", "1", "-extfile", ext.toString());
    return new TestCertificates(caCert, serverKey, serverCert);
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + Files.readString(dir.resolve("openssl.log")));
    }
  }
}
