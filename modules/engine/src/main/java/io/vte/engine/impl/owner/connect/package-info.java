/**
 * How an owner's endpoints get connected: the active open ({@link
 * io.vte.engine.impl.owner.connect.Connector}), the passive side ({@link
 * io.vte.engine.impl.owner.connect.PassiveOpen}) and the Connect messages. It reaches the owner
 * only through {@link io.vte.engine.impl.owner.connect.ConnectorHost}; everything runs on the
 * owner's event loop.
 */
package io.vte.engine.impl.owner.connect;
