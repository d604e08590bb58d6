/**
 * Plugs Mooncake's TCP transport into VTE engines: {@link
 * io.vte.mooncake.engine.MooncakeTransportProvider}, found with {@link java.util.ServiceLoader}
 * through {@code io.vte.engine.spi}. Nothing here is called by name from outside.
 */
package io.vte.mooncake.engine;
