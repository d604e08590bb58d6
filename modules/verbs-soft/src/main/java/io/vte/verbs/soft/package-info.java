/**
 * Soft verbs: the embedded RDMA fabric. {@link io.vte.verbs.soft.SoftVerbsProviderFactory} (name
 * {@code soft}) creates a {@link io.vte.verbs.soft.SoftVerbsProvider} whose devices behave as RC
 * HCAs over TCP; {@link io.vte.verbs.soft.SoftFaultInjector} breaks them on purpose.
 */
package io.vte.verbs.soft;
