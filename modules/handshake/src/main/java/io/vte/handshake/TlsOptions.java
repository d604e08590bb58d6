package io.vte.handshake;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * TLS settings of the handshake service, from PEM files: a key and certificate chain for servers, a
 * trusted CA bundle for clients. Maps to Vert.x {@link PemKeyCertOptions} and {@link PemTrustOptions}.
 *
 * <p>Mutual TLS: a server with {@code requireClientCert} also needs {@code trustPath} and refuses every
 * client that does not present a certificate signed by a CA in it; a client presents its own key and
 * certificate when both paths are set. An engine uses one TLS object for its server and its clients, so
 * the same key, certificate and CA bundle serve both directions.
 */
public final class TlsOptions {

  /** The API's TLS options, whose table holds the JSON keys and defaults. */
  private static final io.vte.api.TlsOptions DEFAULTS = new io.vte.api.TlsOptions();

  private String keyPath;
  private String certPath;
  private String trustPath;
  private boolean verifyHost = DEFAULTS.isVerifyHost();
  private boolean requireClientCert = DEFAULTS.isRequireClientCert();

  /** Creates empty TLS options; set the paths a server or a client needs. */
  public TlsOptions() {}

  /**
   * @param keyPath PEM private key of the server
   * @param certPath PEM certificate chain of the server
   * @return options for a TLS server
   */
  public static TlsOptions server(String keyPath, String certPath) {
    return new TlsOptions().setKeyPath(keyPath).setCertPath(certPath);
  }

  /**
   * @param trustPath PEM bundle of the CA certificates a client trusts
   * @return options for a TLS client
   */
  public static TlsOptions client(String trustPath) {
    return new TlsOptions().setTrustPath(trustPath);
  }

  /**
   * @param json {@code {"keyPath", "certPath", "trustPath", "verifyHost", "requireClientCert"}}, all optional; read
   *     strictly by {@link io.vte.api.TlsOptions#fromJson}
   * @return the options
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static TlsOptions fromJson(JsonObject json) {
    return from(io.vte.api.TlsOptions.fromJson(json));
  }

  /**
   * @param options an engine's TLS options
   * @return handshake TLS options with the same files and checks
   */
  public static TlsOptions from(io.vte.api.TlsOptions options) {
    return new TlsOptions().setKeyPath(options.getKeyPath()).setCertPath(options.getCertPath())
        .setTrustPath(options.getTrustPath()).setVerifyHost(options.isVerifyHost())
        .setRequireClientCert(options.isRequireClientCert());
  }

  /** @return these options as JSON (paths only, never key material) */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("verifyHost", verifyHost).put("requireClientCert", requireClientCert);
    if (keyPath != null) {
      json.put("keyPath", keyPath);
    }
    if (certPath != null) {
      json.put("certPath", certPath);
    }
    if (trustPath != null) {
      json.put("trustPath", trustPath);
    }
    return json;
  }

  /** @return the PEM private key path of a server, or null */
  public String getKeyPath() {
    return keyPath;
  }

  /**
   * @param keyPath the PEM private key path of a server
   * @return this
   */
  public TlsOptions setKeyPath(String keyPath) {
    this.keyPath = keyPath;
    return this;
  }

  /** @return the PEM certificate chain path of a server, or null */
  public String getCertPath() {
    return certPath;
  }

  /**
   * @param certPath the PEM certificate chain path of a server
   * @return this
   */
  public TlsOptions setCertPath(String certPath) {
    this.certPath = certPath;
    return this;
  }

  /** @return the PEM CA bundle path a client trusts, or null */
  public String getTrustPath() {
    return trustPath;
  }

  /**
   * @param trustPath the PEM CA bundle path a client trusts
   * @return this
   */
  public TlsOptions setTrustPath(String trustPath) {
    this.trustPath = trustPath;
    return this;
  }

  /** @return whether a client checks that the server certificate names the host it dialled */
  public boolean isVerifyHost() {
    return verifyHost;
  }

  /**
   * @param verifyHost whether a client checks that the server certificate names the host it dialled
   * @return this
   */
  public TlsOptions setVerifyHost(boolean verifyHost) {
    this.verifyHost = verifyHost;
    return this;
  }

  /** @return whether a server refuses clients that present no certificate signed by a CA in the trust bundle */
  public boolean isRequireClientCert() {
    return requireClientCert;
  }

  /**
   * @param requireClientCert whether a server requires client certificates (mutual TLS); needs a trust path
   * @return this
   */
  public TlsOptions setRequireClientCert(boolean requireClientCert) {
    this.requireClientCert = requireClientCert;
    return this;
  }

  /**
   * Turns TLS on for a server: its key and certificate, and with {@code requireClientCert} the trust bundle
   * client certificates must chain to.
   *
   * @param http the server's HTTP options
   * @throws VteException INVALID_CONFIGURATION when the key or certificate path is missing, or the trust
   *     path when client certificates are required
   */
  public void applyToServer(HttpServerOptions http) {
    if (keyPath == null || certPath == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION,
          "tls.keyPath and tls.certPath are required on a TLS server (keyPath=" + keyPath + ", certPath=" + certPath + ")");
    }
    http.setSsl(true).setUseAlpn(true).setKeyCertOptions(new PemKeyCertOptions().setKeyPath(keyPath).setCertPath(certPath));
    if (requireClientCert) {
      if (trustPath == null) {
        throw new VteException(ErrorCode.INVALID_CONFIGURATION,
            "tls.trustPath is required on a TLS server with tls.requireClientCert (the CAs client certificates chain to)");
      }
      http.setTrustOptions(new PemTrustOptions().addCertPath(trustPath)).setClientAuth(ClientAuth.REQUIRED);
    }
  }

  /**
   * Turns TLS on for a client: the trust bundle, host verification, and its own key and certificate when both
   * paths are set.
   *
   * @param http the client's HTTP options
   * @throws VteException INVALID_CONFIGURATION when the trust path is missing, or only one of key and certificate
   *     is given
   */
  public void applyToClient(HttpClientOptions http) {
    if (trustPath == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "tls.trustPath is required on a TLS client");
    }
    if ((keyPath == null) != (certPath == null)) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION,
          "a TLS client certificate needs both tls.keyPath and tls.certPath (keyPath=" + keyPath + ", certPath=" + certPath + ")");
    }
    http.setSsl(true).setUseAlpn(true).setTrustOptions(new PemTrustOptions().addCertPath(trustPath)).setVerifyHost(verifyHost);
    if (keyPath != null) {
      http.setKeyCertOptions(new PemKeyCertOptions().setKeyPath(keyPath).setCertPath(certPath));
    }
  }
}
