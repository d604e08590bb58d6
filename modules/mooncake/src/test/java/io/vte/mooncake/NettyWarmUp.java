package io.vte.mooncake;

/**
 * Initializes, on the test thread, the Netty class whose first use registers Java Flight Recorder
 * events: the first pooled chunk of a size class loads it on an event loop, and on a loaded machine
 * that one-time JFR set-up blocked the loop for seconds. It is the library's first-use cost, not
 * the code under test.
 */
final class NettyWarmUp {

  private NettyWarmUp() {}

  static void once() {
    try {
      Class.forName("io.netty.buffer.AllocateChunkEvent", true, NettyWarmUp.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      // Another Netty version: nothing to warm up.
    }
  }
}
