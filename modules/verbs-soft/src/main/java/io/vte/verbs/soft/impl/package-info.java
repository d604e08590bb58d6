/**
 * Internals of soft verbs: the device and its NIC thread ({@code Nic}), connections, the requester
 * and responder halves of a QP, rings, key tables, the device's faults. Frames are in {@link
 * io.vte.verbs.soft.impl.wire}, the kernel link in {@link io.vte.verbs.soft.impl.link}, the
 * requester's own bookkeeping in {@link io.vte.verbs.soft.impl.requester}.
 */
package io.vte.verbs.soft.impl;
