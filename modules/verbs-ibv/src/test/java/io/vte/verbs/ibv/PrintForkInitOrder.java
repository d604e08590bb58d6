package io.vte.verbs.ibv;

/**
 * Entry point for a forked JVM on a fake libibverbs: opens the provider twice and prints how often
 * {@code ibv_fork_init} ran and how many device lists came before it. With the argument {@code
 * list-first} it lists the devices through the raw shim first, as a provider that forgot the call
 * would.
 */
public final class PrintForkInitOrder {

  private PrintForkInitOrder() {}

  /**
   * @param args {@code list-first}, or nothing
   */
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("list-first")) {
      if (IbvLibrary.failure() != null) {
        throw IbvLibrary.failure();
      }
      IbvNative.deviceNames();
    }
    for (int i = 0; i < 2; i++) {
      try (IbvProvider p = new IbvProvider(IbvSettings.DEFAULTS)) {
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
