package io.vte.engine.impl.shm;

/** Whether a process of this host still runs, by its id (the pid namespace this JVM sees). */
final class ProcessLiveness {

  private ProcessLiveness() {}

  /**
   * @param pid a process id
   * @return true while a process with that id runs
   */
  static boolean isAlive(long pid) {
    return pid == ProcessHandle.current().pid()
        || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
