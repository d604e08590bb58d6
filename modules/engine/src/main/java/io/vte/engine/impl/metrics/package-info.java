/**
 * The engine's meters: its counters ({@link io.vte.engine.impl.metrics.EngineCounters}), the
 * Micrometer meters of its devices, owners and rails, the NIC's own port counters, and the {@code
 * engine} label they all carry ({@link io.vte.engine.impl.metrics.EngineLabel}).
 */
package io.vte.engine.impl.metrics;
