package io.vte.it.rxe;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs JUnit test classes of this class path inside a guest (where Maven cannot run): {@code
 * GuestJUnit CLASS...} prints the summary and each failure, and exits 0 only when at least one test
 * ran and every test passed (a skipped or aborted test is a failure here: on a guest with rxe
 * devices nothing may be missing).
 */
public final class GuestJUnit {

  private GuestJUnit() {}

  /**
   * @param args the test classes' names
   */
  public static void main(String[] args) {
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (String c : args) {
      request.selectors(selectClass(c));
    }
    LauncherDiscoveryRequest built = request.build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    launcher.execute(built, listener);
    TestExecutionSummary s = listener.getSummary();
    PrintWriter out = new PrintWriter(System.out, true);
    s.printTo(out);
    s.printFailuresTo(out, 40);
    boolean ok =
        s.getTestsStartedCount() > 0
            && s.getTestsFailedCount() == 0
            && s.getTestsAbortedCount() == 0
            && s.getTestsSkippedCount() == 0
            && s.getContainersFailedCount() == 0;
    out.println(
        "guest-junit: "
            + (ok ? "PASSED" : "FAILED")
            + " started="
            + s.getTestsStartedCount()
            + " succeeded="
            + s.getTestsSucceededCount()
            + " failed="
            + s.getTestsFailedCount()
            + " aborted="
            + s.getTestsAbortedCount()
            + " skipped="
            + s.getTestsSkippedCount());
    System.exit(ok ? 0 : 1);
  }
}
