/**
 * The engine module's entry point: the {@link io.vte.api.spi.TransferEngineFactory} implementation,
 * and {@link io.vte.engine.ProviderConfig}, the verbs provider configuration the engine derives
 * from its options (for tools that list devices as the engine would open them). Everything else is
 * in {@code io.vte.engine.impl}, which no other module imports.
 */
package io.vte.engine;
