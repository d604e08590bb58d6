/**
 * Plug-in points of the API: {@link io.vte.api.spi.TransferEngineFactory}, found with
 * ServiceLoader.
 */
package io.vte.api.spi;
