/**
 * Internals of soft verbs: the NIC thread ({@code Nic}), connections and frames, the requester and
 * responder halves of a QP, rings, key tables. Only {@link io.vte.verbs.soft.impl.SoftDevice} is
 * public.
 */
package io.vte.verbs.soft.impl;
