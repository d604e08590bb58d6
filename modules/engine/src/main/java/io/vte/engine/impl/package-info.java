/**
 * The engine layer above the owners. {@link io.vte.engine.impl.TransferEngineImpl} wires the verbs
 * provider, the owner layer ({@code owner} package), the handshake service and the metadata store.
 * The data path: {@link io.vte.engine.impl.TransferSubmitter} validates a batch (nothing is sent on
 * bad input), {@link io.vte.engine.impl.Slicer} cuts requests into {@link
 * io.vte.engine.impl.Slice}s, {@link io.vte.engine.impl.RailSelector} gives each a healthy rail, a
 * {@link io.vte.engine.impl.SliceRouter} hands them to owners, and {@link
 * io.vte.engine.impl.TransferTracker} / {@link io.vte.engine.impl.BatchTracker} count them back,
 * retry on other rails, and settle requests (deadline, cancel, close).
 */
package io.vte.engine.impl;
