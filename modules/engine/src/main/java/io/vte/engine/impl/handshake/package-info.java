/**
 * What the owners' handshakes need besides the owner itself: the channel that sends a {@code
 * Connect} ({@link io.vte.engine.impl.handshake.HandshakeChannel}), the wait before a refused one
 * is tried again ({@link io.vte.engine.impl.handshake.HandshakeBackoff}) and what both ends must
 * agree on before their QPs go to RTR ({@link io.vte.engine.impl.handshake.PathAgreement}).
 */
package io.vte.engine.impl.handshake;
