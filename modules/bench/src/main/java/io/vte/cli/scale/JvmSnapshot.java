package io.vte.cli.scale;

import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * This JVM's figures at one moment, after a GC: direct memory (the JVM's direct pool plus Netty's
 * own), heap in use, threads and open TCP sockets.
 *
 * @param direct direct bytes
 * @param heap heap bytes in use
 * @param threads live threads
 * @param sockets open sockets ({@code /proc/self/fd} links to {@code socket:})
 */
record JvmSnapshot(long direct, long heap, long threads, long sockets) {

  /**
   * @return the figures now (takes about 300 ms: two GCs and a pause for the cleaners)
   */
  static JvmSnapshot take() {
    System.gc();
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // cleaners free direct buffers
    System.gc();
    long direct = 0;
    for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (p.getName().equals("direct")) {
        direct = p.getMemoryUsed();
      }
    }
    long netty = io.netty.util.internal.PlatformDependent.usedDirectMemory();
    return new JvmSnapshot(
        direct + Math.max(0, netty),
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
        ManagementFactory.getThreadMXBean().getThreadCount(),
        countSockets());
  }

  private static long countSockets() {
    File[] fds = new File("/proc/self/fd").listFiles();
    long n = 0;
    for (File fd : fds == null ? new File[0] : fds) {
      try {
        if (Files.readSymbolicLink(Path.of(fd.getPath())).toString().startsWith("socket:")) {
          n++;
        }
      } catch (IOException e) {
        // closed while listed
      }
    }
    return n;
  }
}
