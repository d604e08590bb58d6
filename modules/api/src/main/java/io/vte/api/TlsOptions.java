package io.vte.api;

import io.vertx.core.json.JsonObject;

/**
 * TLS of an engine's handshake service, from PEM files; JSON {@code {"keyPath", "certPath",
 * "trustPath", "verifyHost", "requireClientCert"}}. An engine uses one TLS object for its server
 * (key and certificate; with {@code requireClientCert} also the trust bundle) and its clients
 * (trust bundle; key and certificate when both are set); the handshake module checks those
 * combinations when it starts (mutual TLS: a server with {@code requireClientCert} refuses every
 * client without a certificate signed by a CA in {@code trustPath}).
 */
public final class TlsOptions {

  /** The fields: JSON names, kinds, defaults, ranges. */
  public static final OptionFields<TlsOptions> FIELDS =
      OptionFields.of(
          OptionFields.field(
                  "keyPath",
                  OptionKind.STRING,
                  null,
                  TlsOptions::getKeyPath,
                  TlsOptions::setKeyPath)
              .check(TlsOptions::unsetOrNonBlank, "a PEM file path"),
          OptionFields.field(
                  "certPath",
                  OptionKind.STRING,
                  null,
                  TlsOptions::getCertPath,
                  TlsOptions::setCertPath)
              .check(TlsOptions::unsetOrNonBlank, "a PEM file path"),
          OptionFields.field(
                  "trustPath",
                  OptionKind.STRING,
                  null,
                  TlsOptions::getTrustPath,
                  TlsOptions::setTrustPath)
              .check(TlsOptions::unsetOrNonBlank, "a PEM file path"),
          OptionFields.field(
              "verifyHost",
              OptionKind.BOOLEAN,
              true,
              TlsOptions::isVerifyHost,
              TlsOptions::setVerifyHost),
          OptionFields.field(
              "requireClientCert",
              OptionKind.BOOLEAN,
              false,
              TlsOptions::isRequireClientCert,
              TlsOptions::setRequireClientCert));

  private String keyPath;
  private String certPath;
  private String trustPath;
  private boolean verifyHost;
  private boolean requireClientCert;

  /**
   * Creates TLS options with the defaults (no paths, host verified, no client certificate
   * required).
   */
  public TlsOptions() {
    FIELDS.applyDefaults(this);
  }

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
   * @param json the TLS options
   * @return them, types checked (ranges by {@link #validate()})
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static TlsOptions fromJson(JsonObject json) {
    TlsOptions o = new TlsOptions();
    FIELDS.read(json, o, "tls option", "");
    return o;
  }

  /**
   * @return the options as JSON (paths only, never key material)
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field
   */
  public TlsOptions validate() {
    FIELDS.validate(this, "tls option", "");
    return this;
  }

  private static boolean unsetOrNonBlank(String path) {
    return path == null || !path.isBlank();
  }

  /**
   * @return the PEM private key path, or null
   */
  public String getKeyPath() {
    return keyPath;
  }

  /**
   * @param keyPath the PEM private key path
   * @return this
   */
  public TlsOptions setKeyPath(String keyPath) {
    this.keyPath = keyPath;
    return this;
  }

  /**
   * @return the PEM certificate chain path, or null
   */
  public String getCertPath() {
    return certPath;
  }

  /**
   * @param certPath the PEM certificate chain path
   * @return this
   */
  public TlsOptions setCertPath(String certPath) {
    this.certPath = certPath;
    return this;
  }

  /**
   * @return the PEM bundle of trusted CA certificates, or null
   */
  public String getTrustPath() {
    return trustPath;
  }

  /**
   * @param trustPath the PEM bundle of trusted CA certificates
   * @return this
   */
  public TlsOptions setTrustPath(String trustPath) {
    this.trustPath = trustPath;
    return this;
  }

  /**
   * @return whether a client checks that the server certificate names the host it dialled
   */
  public boolean isVerifyHost() {
    return verifyHost;
  }

  /**
   * @param verifyHost whether a client checks the server certificate's host name
   * @return this
   */
  public TlsOptions setVerifyHost(boolean verifyHost) {
    this.verifyHost = verifyHost;
    return this;
  }

  /**
   * @return whether the server refuses clients without a certificate signed by a trusted CA
   */
  public boolean isRequireClientCert() {
    return requireClientCert;
  }

  /**
   * @param requireClientCert whether the server requires client certificates (mutual TLS)
   * @return this
   */
  public TlsOptions setRequireClientCert(boolean requireClientCert) {
    this.requireClientCert = requireClientCert;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TlsOptions other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return "TlsOptions" + toJson().encode();
  }
}
