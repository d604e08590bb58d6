package io.vte.verbs;

/** Memory-region and QP access flags, numbered as {@code enum ibv_access_flags}. */
public final class AccessFlags {

  /** The local HCA may write the region (needed for RECV and READ targets). */
  public static final int LOCAL_WRITE = 1;

  /** Peers may RDMA WRITE into the region. */
  public static final int REMOTE_WRITE = 1 << 1;

  /** Peers may RDMA READ from the region. */
  public static final int REMOTE_READ = 1 << 2;

  /** Peers may perform atomics on the region (not implemented by soft verbs). */
  public static final int REMOTE_ATOMIC = 1 << 3;

  /** Every flag VTE uses for a remotely accessible buffer. */
  public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

  private static final int KNOWN = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

  private AccessFlags() {}

  /**
   * @param flags access flags
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} when unknown bits are set, or remote
   *     write is asked without local write (as ibverbs requires)
   */
  public static void validate(int flags) {
    if ((flags & ~KNOWN) != 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "unknown access flag bits 0x" + Integer.toHexString(flags & ~KNOWN));
    }
    if ((flags & REMOTE_WRITE) != 0 && (flags & LOCAL_WRITE) == 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "REMOTE_WRITE requires LOCAL_WRITE (flags 0x" + Integer.toHexString(flags) + ")");
    }
  }

  /**
   * @param flags access flags
   * @return a readable form such as {@code LOCAL_WRITE|REMOTE_READ}
   */
  public static String toString(int flags) {
    StringBuilder sb = new StringBuilder();
    append(sb, flags, LOCAL_WRITE, "LOCAL_WRITE");
    append(sb, flags, REMOTE_WRITE, "REMOTE_WRITE");
    append(sb, flags, REMOTE_READ, "REMOTE_READ");
    append(sb, flags, REMOTE_ATOMIC, "REMOTE_ATOMIC");
    return sb.length() == 0 ? "NONE" : sb.toString();
  }

  private static void append(StringBuilder sb, int flags, int bit, String name) {
    if ((flags & bit) != 0) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append(name);
    }
  }
}
