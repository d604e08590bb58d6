package io.vte.engine.impl;

import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeAuth;
import io.vte.handshake.HandshakeClientOptions;
import io.vte.handshake.HandshakeServerOptions;
import io.vte.metadata.MetadataStores;

/**
 * The options of an engine's handshake server, handshake clients and metadata store, made from its
 * typed {@link EngineOptions} (nothing goes through JSON). The owners' come from {@link
 * io.vte.engine.impl.owner.OwnerConfig#from}, the verbs provider's from {@link ProviderConfig#of}.
 */
final class EnginePartOptions {

  private EnginePartOptions() {}

  /**
   * @param options validated engine options with host defaults filled in
   * @return the handshake server's options: rpcHost, rpcPort, auth and TLS
   * @throws VteException INVALID_CONFIGURATION naming a bad auth or TLS field
   */
  static HandshakeServerOptions handshakeServer(EngineOptions options) {
    return new HandshakeServerOptions()
        .setHost(options.getRpcHost())
        .setPort(options.getRpcPort())
        .setAuth(auth(options))
        .setTls(options.getTls());
  }

  /**
   * @param options validated engine options
   * @return the handshake clients' options: the handshake deadline, auth and TLS
   * @throws VteException INVALID_CONFIGURATION naming a bad auth or TLS field
   */
  static HandshakeClientOptions handshakeClient(EngineOptions options) {
    return new HandshakeClientOptions()
        .setDefaultDeadline(options.getHandshakeDeadline())
        .setAuth(auth(options))
        .setTls(options.getTls());
  }

  /**
   * @param options engine options
   * @return the metadata store options their {@code metadata} object describes; the call deadline
   *     defaults to the handshake deadline
   * @throws VteException INVALID_CONFIGURATION naming the {@code metadata} option and the bad field
   */
  static MetadataOptions metadata(EngineOptions options) {
    MetadataOptions mo =
        options.getMetadata() == null
            ? new MetadataOptions()
            : new MetadataOptions(options.getMetadata());
    if (mo.getCallDeadline() == null) {
      mo.setCallDeadline(options.getHandshakeDeadline());
    }
    return MetadataStores.resolve(mo);
  }

  private static HandshakeAuth auth(EngineOptions options) {
    return options.getAuth() == null ? null : HandshakeAuth.from(options.getAuth());
  }
}
