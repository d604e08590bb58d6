/**
 * The {@code ibverbs} verbs provider: RDMA NICs through a JNI shim over libibverbs ({@code
 * native/}), with the same contract as soft verbs. Select it with {@code
 * VerbsProviders.create("ibverbs", config)}; check {@link
 * io.vte.verbs.ibv.IbvProvider#isAvailable()} and fall back to {@code soft} with the reason from
 * {@link io.vte.verbs.ibv.IbvProvider#unavailabilityCause()}.
 */
package io.vte.verbs.ibv;
