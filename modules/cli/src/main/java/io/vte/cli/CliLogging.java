package io.vte.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sends every log record of the {@code vte} process through SLF4J (logback, configured by
 * conf/logback.xml): VTE itself logs with {@link System.Logger}, which slf4j-jdk-platform-logging
 * routes there; grpc-java (under jetcd) logs with java.util.logging, which this bridges.
 */
final class CliLogging {

  private CliLogging() {}

  /**
   * Routes java.util.logging to SLF4J, once per JVM; JUL's own console handler goes so nothing
   * prints twice.
   */
  static synchronized void install() {
    if (SLF4JBridgeHandler.isInstalled()) {
      return;
    }
    Logger root = LogManager.getLogManager().getLogger("");
    for (Handler h : root.getHandlers()) {
      if (h instanceof ConsoleHandler) {
        root.removeHandler(h);
      }
    }
    SLF4JBridgeHandler.install();
  }
}
