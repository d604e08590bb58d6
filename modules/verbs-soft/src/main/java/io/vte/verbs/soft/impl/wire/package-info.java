/**
 * The soft NIC's wire: frame headers, the reader (a state machine over a connection's bytes) and
 * the gathering writer, injected frame faults, and the guards every access to registered memory
 * passes ({@code AccessGate}, {@code GuardedAccess}). Used by the connections of {@code
 * io.vte.verbs.soft.impl}; nothing here knows QPs.
 */
package io.vte.verbs.soft.impl.wire;
