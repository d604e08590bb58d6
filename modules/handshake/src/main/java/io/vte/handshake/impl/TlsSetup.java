package io.vte.handshake.impl;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vte.api.ErrorCode;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;

/**
 * Turns {@link TlsOptions} into Vert.x TLS settings of the handshake server and clients, from PEM
 * files ({@link PemKeyCertOptions}, {@link PemTrustOptions}), checking that each role has the files
 * it needs.
 */
public final class TlsSetup {

  private TlsSetup() {}

  /**
   * Turns TLS on for a server: its key and certificate, and with {@code requireClientCert} the
   * trust bundle client certificates must chain to.
   *
   * @param tls the TLS options
   * @param http the server's HTTP options
   * @throws VteException INVALID_CONFIGURATION when the key or certificate path is missing, or the
   *     trust path when client certificates are required
   */
  public static void applyToServer(TlsOptions tls, HttpServerOptions http) {
    if (tls.getKeyPath() == null || tls.getCertPath() == null) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "tls.keyPath and tls.certPath are required on a TLS server (keyPath="
              + tls.getKeyPath()
              + ", certPath="
              + tls.getCertPath()
              + ")");
    }
    http.setSsl(true)
        .setUseAlpn(true)
        .setKeyCertOptions(
            new PemKeyCertOptions().setKeyPath(tls.getKeyPath()).setCertPath(tls.getCertPath()));
    if (tls.isRequireClientCert()) {
      if (tls.getTrustPath() == null) {
        throw new VteException(
            ErrorCode.INVALID_CONFIGURATION,
            "tls.trustPath is required on a TLS server with tls.requireClientCert (the CAs client certificates chain to)");
      }
      http.setTrustOptions(new PemTrustOptions().addCertPath(tls.getTrustPath()))
          .setClientAuth(ClientAuth.REQUIRED);
    }
  }

  /**
   * Turns TLS on for a client: the trust bundle, host verification, and its own key and certificate
   * when both paths are set.
   *
   * @param tls the TLS options
   * @param http the client's HTTP options
   * @throws VteException INVALID_CONFIGURATION when the trust path is missing, or only one of key
   *     and certificate is given
   */
  public static void applyToClient(TlsOptions tls, HttpClientOptions http) {
    if (tls.getTrustPath() == null) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "tls.trustPath is required on a TLS client");
    }
    if ((tls.getKeyPath() == null) != (tls.getCertPath() == null)) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "a TLS client certificate needs both tls.keyPath and tls.certPath (keyPath="
              + tls.getKeyPath()
              + ", certPath="
              + tls.getCertPath()
              + ")");
    }
    http.setSsl(true)
        .setUseAlpn(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(tls.getTrustPath()))
        .setVerifyHost(tls.isVerifyHost());
    if (tls.getKeyPath() != null) {
      http.setKeyCertOptions(
          new PemKeyCertOptions().setKeyPath(tls.getKeyPath()).setCertPath(tls.getCertPath()));
    }
  }
}
