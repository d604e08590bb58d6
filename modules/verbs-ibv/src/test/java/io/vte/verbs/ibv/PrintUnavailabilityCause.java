package io.vte.verbs.ibv;

/** Entry point for a forked JVM: prints the provider's unavailability cause (or "available"). */
public final class PrintUnavailabilityCause {

  private PrintUnavailabilityCause() {}

  /**
   * @param args unused
   */
  public static void main(String[] args) {
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      System.out.println(p.isAvailable() ? "available" : p.unavailabilityCause().getMessage());
    }
  }
}
