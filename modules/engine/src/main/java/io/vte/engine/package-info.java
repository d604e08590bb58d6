/** The engine module's entry point: the {@link io.vte.api.spi.TransferEngineFactory} implementation. */
package io.vte.engine;
