package io.vte.handshake.impl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.AuthOptions;
import io.vte.api.OptionKind;
import io.vte.api.TlsOptions;
import io.vte.handshake.HandshakeAuth;

/** The JSON kinds of the handshake options' {@code auth} and {@code tls} fields. */
public final class OptionsJson {

  private OptionsJson() {}

  /** {@link TlsOptions}, read strictly through their table. */
  public static final OptionKind<TlsOptions> TLS =
      OptionKind.object(TlsOptions.FIELDS, TlsOptions::new);

  /**
   * A {@link HandshakeAuth} read from an {@link AuthOptions} object (strictly, through its table)
   * and written without its secrets: its key id, skew and the ids of the keys it also accepts.
   */
  public static final OptionKind<HandshakeAuth> AUTH =
      new OptionKind<>() {
        @Override
        public String type() {
          return "object";
        }

        @Override
        public HandshakeAuth read(Object json, String label, String path) {
          if (json == null) {
            return null;
          }
          AuthOptions auth =
              json instanceof JsonObject object
                  ? AuthOptions.fromJson(object)
                  : OptionKind.object(AuthOptions.FIELDS, AuthOptions::new).read(json, label, path);
          return HandshakeAuth.from(auth);
        }

        @Override
        public Object write(HandshakeAuth auth) {
          JsonArray accepted = new JsonArray();
          auth.acceptedKeyIds().stream()
              .filter(id -> !id.equals(auth.keyId()))
              .forEach(accepted::add);
          return new JsonObject()
              .put("keyId", auth.keyId())
              .put("skewMs", auth.skew().toMillis())
              .put("acceptKeyIds", accepted);
        }
      };
}
