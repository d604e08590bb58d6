/**
 * Rails, routes and their slices: {@link io.vte.engine.impl.rail.Slice}, the unit of work a
 * transport carries; {@link io.vte.engine.impl.rail.Transport}, a way slices travel (the verbs
 * rails of {@link io.vte.engine.impl.rail.RailSelector}, the same-host rail); {@link
 * io.vte.engine.impl.rail.Route}, what a slice is given once (a path and the {@link
 * io.vte.engine.impl.rail.Carrier} that moves it); {@link io.vte.engine.impl.rail.Routing}, which
 * hands slices to their carriers.
 */
package io.vte.engine.impl.rail;
