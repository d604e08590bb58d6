package io.vte.verbs.soft;

import io.vte.verbs.VerbsContext;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.List;

/**
 * The soft device of {@link KernelLinkTest}, run in a JVM inside a network namespace: opens one
 * device on the address given, prints {@code READY <port state>}, then {@code EVENT <type> <port
 * state>} for each async event (from the NIC thread, as it is delivered), and answers {@code STATE}
 * with {@code STATE <port state>}; exits at end of input.
 */
public final class LinkWatchMain {

  private LinkWatchMain() {}

  /**
   * @param args the device's address
   */
  public static void main(String[] args) throws Exception {
    SoftVerbsProvider provider =
        (SoftVerbsProvider)
            new SoftVerbsProviderFactory()
                .create(new SoftVerbsConfig().setDevices(List.of("lw0@" + args[0])));
    VerbsContext ctx = provider.open("lw0");
    ctx.setAsyncEventHandler(e -> say("EVENT " + e.type() + " " + ctx.queryPort(1).state()));
    say("READY " + ctx.queryPort(1).state());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.trim().equals("STATE")) {
        say("STATE " + ctx.queryPort(1).state());
      }
    }
    provider.close();
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
