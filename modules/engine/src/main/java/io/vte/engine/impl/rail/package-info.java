/**
 * Rails and their slices: {@link io.vte.engine.impl.rail.Slice}, the unit of work a transport
 * carries; {@link io.vte.engine.impl.rail.RailSelector}, which gives each slice the healthy rail
 * where it is expected to finish first, with its load, health and affinity; and {@link
 * io.vte.engine.impl.rail.SliceRouter}, which hands slices to what carries their rail.
 */
package io.vte.engine.impl.rail;
