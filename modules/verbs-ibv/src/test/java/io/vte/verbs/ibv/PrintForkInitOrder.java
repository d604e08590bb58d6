package io.vte.verbs.ibv;

/**
 * Entry point for a forked JVM on a fake libibverbs: opens the provider twice (with {@code
 * forkInit} on, or with the defaults given the argument {@code defaults}) and prints how often
 * {@code ibv_fork_init} ran and how many device lists came before it. With the argument {@code
 * list-first} it lists the devices through the raw shim first, as a provider that forgot the call
 * would.
 */
public final class PrintForkInitOrder {

  private PrintForkInitOrder() {}

  /**
   * @param args {@code list-first}, {@code defaults}, or nothing
   */
  public static void main(String[] args) {
    String mode = args.length > 0 ? args[0] : "";
    IbvSettings settings =
        mode.equals("defaults") ? new IbvSettings() : new IbvSettings().setForkInit(true);
    if (mode.equals("list-first")) {
      if (IbvLibrary.failure() != null) {
        throw IbvLibrary.failure();
      }
      IbvNative.deviceNames();
    }
    for (int i = 0; i < 2; i++) {
      try (IbvProvider p = new IbvProvider(settings)) {
        p.devices();
      }
    }
    System.out.println(
        "fork_inits="
            + FakeIbverbs.count("fork_inits")
            + " lists_before_fork_init="
            + FakeIbverbs.count("lists_before_fork_init"));
  }
}
