/**
 * The engine layer above the owners. {@link io.vte.engine.impl.TransferEngineImpl} wires the verbs
 * provider, the owner layer ({@code owner} package), the handshake service and the metadata store
 * into {@link io.vte.engine.impl.EngineParts}; the data path lives in {@code submit} (validate,
 * slice, count back), {@code rail} (slices, rail selection, routing), {@code segment} (local and
 * peer memory), {@code notify} (notifications) and {@code shm} (the same-host rail).
 */
package io.vte.engine.impl;
