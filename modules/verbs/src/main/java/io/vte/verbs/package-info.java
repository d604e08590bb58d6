/**
 * The verbs SPI: the provider contract that soft verbs and the JNI ibverbs provider both implement.
 *
 * <p>Shaped after libibverbs: a {@link io.vte.verbs.VerbsProvider} lists devices and opens a {@link
 * io.vte.verbs.VerbsContext}; a context allocates {@link io.vte.verbs.ProtectionDomain}s and {@link
 * io.vte.verbs.CompletionQueue}s and reports {@link io.vte.verbs.AsyncEvent}s; a protection domain
 * registers {@link io.vte.verbs.MemoryRegion}s and creates RC {@link io.vte.verbs.QueuePair}s.
 *
 * <p>The hot path (posting work requests, polling completions) allocates nothing: work requests and
 * completions travel in flat, reusable, direct buffers ({@link io.vte.verbs.WorkRequestBatch},
 * {@link io.vte.verbs.WorkCompletionBatch}) and failures are negative return codes ({@link
 * io.vte.verbs.PostStatus}). The control plane (open, register, create, modify) throws {@link
 * io.vte.verbs.VerbsException}.
 */
package io.vte.verbs;
