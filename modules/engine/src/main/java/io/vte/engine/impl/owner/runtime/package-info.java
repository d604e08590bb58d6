/**
 * What runs an owner beside its duty cycle: the ring other threads hand slices through, the idle
 * strategy between cycles, and the threads that run blocking QP verbs.
 */
package io.vte.engine.impl.owner.runtime;
