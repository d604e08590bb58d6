package io.vte.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A CA and a server certificate for 127.0.0.1 made with openssl at test time in a temporary directory, so no key
 * is ever committed.
 *
 * @param caCert the CA certificate (PEM), what clients trust
 * @param key the server private key (PEM)
 * @param cert the server certificate signed by the CA (PEM)
 */
public record ThrowawayCa(Path caCert, Path key, Path cert) {

  /**
   * @param dir a temporary directory
   * @param name file prefix, so several CAs can share the directory
   * @return the CA and its server certificate
   * @throws IOException when openssl fails
   * @throws InterruptedException when interrupted
   */
  public static ThrowawayCa create(Path dir, String name) throws IOException, InterruptedException {
    Path caKey = dir.resolve(name + "-ca.key");
    Path caCert = dir.resolve(name + "-ca.pem");
    Path key = dir.resolve(name + ".key");
    Path csr = dir.resolve(name + ".csr");
    Path cert = dir.resolve(name + ".pem");
    Path ext = dir.resolve(name + ".ext");
    Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n", StandardCharsets.US_ASCII);
    openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=" + name + " test CA",
        "-keyout", caKey.toString(), "-out", caCert.toString());
    openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", key.toString(),
        "-out", csr.toString());
    openssl(dir, "x509", "-req", "-days", "1", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey",
        caKey.toString(), "-CAcreateserial", "-extfile", ext.toString(), "-out", cert.toString());
    return new ThrowawayCa(caCert, key, cert);
  }

  /** @return the engine "tls" option: this server identity, and trust in this CA */
  public io.vertx.core.json.JsonObject engineTls() {
    return new io.vertx.core.json.JsonObject().put("keyPath", key.toString()).put("certPath", cert.toString())
        .put("trustPath", caCert.toString());
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + Files.readString(log));
    }
  }
}
