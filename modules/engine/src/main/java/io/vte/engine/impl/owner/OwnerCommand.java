package io.vte.engine.impl.owner;

/** Work another thread hands to an owner, run on the owner's event loop. */
@FunctionalInterface
interface OwnerCommand {

  /** Runs on the owner's thread. */
  void execute(Owner owner);

  /** Called instead of {@link #execute} when the owner is gone (closed); answers whoever waits. */
  default void abort() {}
}
