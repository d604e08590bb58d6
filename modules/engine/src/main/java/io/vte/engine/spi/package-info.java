/**
 * The seam through which transports to peers that are not VTE engines plug into an engine: a {@link
 * io.vte.engine.spi.PeerTransportProvider} found with {@link java.util.ServiceLoader} opens the
 * segment names of its scheme ({@code mooncake://host:port}), and the engine hands it the slices of
 * requests to such segments as {@link io.vte.engine.spi.PeerSlice}s, under its own batches,
 * deadlines, cancel and typed results. The engine depends on no such provider.
 */
package io.vte.engine.spi;
