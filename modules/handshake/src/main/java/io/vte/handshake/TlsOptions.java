package io.vte.handshake;

import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * TLS settings of the handshake service, from PEM files: a key and certificate chain for servers, a
 * trusted CA bundle for clients. Maps to Vert.x {@link PemKeyCertOptions} and {@link PemTrustOptions}.
 */
public final class TlsOptions {

  private String keyPath;
  private String certPath;
  private String trustPath;
  private boolean verifyHost = true;

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
   * @param json {@code {"keyPath", "certPath", "trustPath", "verifyHost"}}, all optional
   * @return the options
   */
  public static TlsOptions fromJson(JsonObject json) {
    return new TlsOptions()
        .setKeyPath(json.getString("keyPath"))
        .setCertPath(json.getString("certPath"))
        .setTrustPath(json.getString("trustPath"))
        .setVerifyHost(json.getBoolean("verifyHost", true));
  }

  /** @return these options as JSON (paths only, never key material) */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("verifyHost", verifyHost);
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

  /**
   * @return the server key and certificate as Vert.x options
   * @throws VteException INVALID_CONFIGURATION when the key or certificate path is missing
   */
  public PemKeyCertOptions toKeyCertOptions() {
    if (keyPath == null || certPath == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION,
          "tls.keyPath and tls.certPath are required on a TLS server (keyPath=" + keyPath + ", certPath=" + certPath + ")");
    }
    return new PemKeyCertOptions().setKeyPath(keyPath).setCertPath(certPath);
  }

  /**
   * @return the client trust bundle as Vert.x options
   * @throws VteException INVALID_CONFIGURATION when the trust path is missing
   */
  public PemTrustOptions toTrustOptions() {
    if (trustPath == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "tls.trustPath is required on a TLS client");
    }
    return new PemTrustOptions().addCertPath(trustPath);
  }
}
