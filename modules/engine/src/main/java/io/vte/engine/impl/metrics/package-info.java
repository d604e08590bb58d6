/**
 * The engine's meters: its counters ({@link io.vte.engine.impl.metrics.EngineCounters}) and the
 * Micrometer meters of its devices, owners and rails.
 */
package io.vte.engine.impl.metrics;
