package io.vte.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Reads a child process's output line by line on a daemon thread of its own. */
public final class LinePump {

  private LinePump() {}

  /**
   * Starts reading {@code in} until it ends (the process exited or closed it).
   *
   * @param in the stream, UTF-8 text
   * @param sink receives each line, on the pump's thread
   * @param threadName the thread's name
   * @return the started thread
   */
  public static Thread start(InputStream in, Consumer<String> sink, String threadName) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  sink.accept(line);
                }
              } catch (IOException e) {
                // the child went away: what was read stays
              }
            },
            threadName);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
