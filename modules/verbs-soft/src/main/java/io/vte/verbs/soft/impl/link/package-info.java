/**
 * The kernel link under a soft device's address: the probe that reads it and the settled port state
 * the NIC thread follows (with the fault injector's hold).
 */
package io.vte.verbs.soft.impl.link;
