/**
 * The requester's own bookkeeping, which needs nothing of the NIC's classes: its send window (sent,
 * transmitted, answered, sequence numbers), its retry budget and its idle watch. The requester
 * itself ({@code io.vte.verbs.soft.impl.Requester}) and its response matching drive the QP's
 * connection and send queue, whose package-private parts they use, so they stay beside them.
 */
package io.vte.verbs.soft.impl.requester;
