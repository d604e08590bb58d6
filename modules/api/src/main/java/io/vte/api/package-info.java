/**
 * The public API of VTE: {@link io.vte.api.TransferEngine} (create, register memory, open peer
 * segments, submit batches of one-sided READ/WRITE requests, the explicit batch-id API,
 * notifications, close), {@link io.vte.api.EngineDiagnostics} (devices, rails, counters and, on
 * soft verbs, a {@link io.vte.api.FaultInjector}), {@link io.vte.api.EngineOptions} (fluent and
 * JSON, validated with typed errors) and the typed failures {@link io.vte.api.VteException} /
 * {@link io.vte.api.ErrorCode}. Everything returns Vert.x Futures and may be called from any thread
 * or verticle.
 */
package io.vte.api;
