/**
 * What the owners' handshakes need from outside: the channel that sends a {@code Connect} ({@link
 * io.vte.engine.impl.handshake.HandshakeChannel}) and the wait before a refused one is tried again
 * ({@link io.vte.engine.impl.handshake.HandshakeBackoff}).
 */
package io.vte.engine.impl.handshake;
