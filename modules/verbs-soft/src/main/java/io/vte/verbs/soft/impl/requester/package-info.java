/**
 * The requester's own bookkeeping, which needs nothing of the NIC's classes: its retry budget and
 * its idle watch. The requester itself ({@code io.vte.verbs.soft.impl.Requester}) drives the QP's
 * connection and send queue, whose package-private parts it uses, so it stays beside them.
 */
package io.vte.verbs.soft.impl.requester;
