/**
 * The VTE control plane: a Vert.x gRPC service every node serves ({@link
 * io.vte.handshake.HandshakeServer}) and the engine's client for it ({@link
 * io.vte.handshake.HandshakeClientPool}).
 *
 * <p>Three unary calls: Connect (endpoint handshake), GetSegment (segment descriptor) and Notify.
 * Every request is checked by {@link io.vte.handshake.HandshakeValidator} before the engine's
 * {@link io.vte.handshake.HandshakeHandler} sees it; with {@link io.vte.handshake.HandshakeAuth}
 * on, it must first carry a valid HMAC token, so an unauthenticated peer learns nothing; keys
 * rotate without downtime. TLS, mutual if asked, is optional ({@link io.vte.api.TlsOptions}). Every
 * call has a deadline on both sides; failures are {@link io.vte.api.VteException}s with typed
 * codes.
 *
 * <p>JSON forms, as passed through the engine options: server {@code {"host", "port",
 * "maxMessageSize", "maxCallDurationMs", "idleTimeoutMs", "auth", "tls"}}, client {@code
 * {"defaultDeadlineMs", "maxMessageSize", "auth", "tls"}}, auth {@code {"keyId", "secretBase64",
 * "skewMs", "acceptKeys"}}, tls {@code {"keyPath", "certPath", "trustPath", "verifyHost",
 * "requireClientCert"}}.
 */
package io.vte.handshake;
