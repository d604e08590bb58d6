package io.vte.metadata.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.metadata.MetadataStores;
import io.vte.metadata.impl.MetadataUri;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import javax.net.ssl.SSLException;

/**
 * Maps a metadata URI and options onto a jetcd client: endpoints, deadlines, credentials and TLS.
 */
public final class EtcdClients {

  private EtcdClients() {}

  /**
   * Checks the options against the URI and prepares a client builder; nothing connects yet.
   *
   * @param uri an {@code etcd://} or {@code etcds://} URI
   * @param given the options (resolved with {@link MetadataStores#resolve})
   * @return the builder
   * @throws VteException INVALID_CONFIGURATION naming the inconsistent option or unreadable file
   */
  public static ClientBuilder builder(MetadataUri uri, MetadataOptions given) {
    MetadataOptions options = MetadataStores.resolve(given);
    long callMs = options.getCallDeadline().toMillis();
    // jetcd retries a failed call after retryDelay (500 ms by default) and refuses to build a
    // client whose
    // retryMaxDuration is not longer than that delay: keep the delay a fifth of the call deadline
    // at most.
    long retryDelayMs = Math.max(1, Math.min(500, callMs / 5));
    ClientBuilder b =
        Client.builder()
            .endpoints(uri.clientEndpoints().toArray(String[]::new))
            .connectTimeout(options.getCallDeadline())
            // Fail calls fast while the channel is down, instead of queueing them until it is back.
            .waitForReady(false)
            .retryChronoUnit(ChronoUnit.MILLIS)
            .retryDelay(retryDelayMs)
            .retryMaxDuration(Duration.ofMillis(Math.max(callMs, retryDelayMs + 1)));
    String user = options.getEtcdUser();
    String password = options.getEtcdPassword();
    if ((user == null) != (password == null) || "".equals(user)) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "metadata options for "
              + uri
              + ": etcdUser and etcdPassword must be given together and the user must not be empty (user = "
              + user
              + ")");
    }
    if (user != null) {
      b.user(ByteSequence.from(user, StandardCharsets.UTF_8))
          .password(ByteSequence.from(password, StandardCharsets.UTF_8));
    }
    configureTls(b, uri, options);
    return b;
  }

  private static void configureTls(ClientBuilder b, MetadataUri uri, MetadataOptions o) {
    String trust = o.getTlsTrustPemPath();
    String cert = o.getTlsCertPemPath();
    String key = o.getTlsKeyPemPath();
    if (!uri.isTls()) {
      if (trust != null || cert != null || key != null) {
        throw new VteException(
            ErrorCode.INVALID_CONFIGURATION,
            "metadata URI '" + uri + "' is plain text but TLS files are configured: use etcds://");
      }
      return;
    }
    if ((cert == null) != (key == null)) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "metadata options for "
              + uri
              + ": tlsCertPemPath and tlsKeyPemPath must be given together (cert = "
              + cert
              + ", key = "
              + key
              + ")");
    }
    File trustFile = trust == null ? null : readable("tlsTrustPemPath", trust);
    File certFile = cert == null ? null : readable("tlsCertPemPath", cert);
    File keyFile = key == null ? null : readable("tlsKeyPemPath", key);
    try {
      b.sslContext(
          ssl -> {
            if (trustFile != null) {
              ssl.trustManager(trustFile);
            }
            if (certFile != null) {
              ssl.keyManager(certFile, keyFile);
            }
          });
    } catch (SSLException | RuntimeException e) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "metadata TLS files for "
              + uri
              + " (trust "
              + trust
              + ", cert "
              + cert
              + ", key "
              + key
              + ") are not usable PEM: "
              + e.getMessage(),
          e);
    }
  }

  private static File readable(String field, String path) {
    File f = new File(path);
    if (!f.isFile() || !f.canRead()) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "metadata option " + field + " = " + path + ": not a readable file");
    }
    return f;
  }
}
