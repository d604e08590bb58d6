package io.vte.verbs.ibv;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Loads the JNI shim once per class loader and checks that it speaks this jar's contract: the same
 * {@link IbvNative#ABI_VERSION} and the same flat {@link WorkRequestBatch}/{@link
 * WorkCompletionBatch} layouts. {@link #failure()} says in plain words why the shim is unusable,
 * and what to use instead.
 */
final class IbvLibrary {

  /** Where the build packs the shim inside the jar. */
  static final String RESOURCE = "META-INF/native/libvte_ibv_linux_x86_64.so";

  private static final String USE_SOFT = "use the 'soft' verbs provider instead";
  private static final VerbsException FAILURE = load(IbvLibrary.class.getClassLoader(), RESOURCE);

  private static final System.Logger LOG = System.getLogger(IbvLibrary.class.getName());
  private static final AtomicBoolean FORK_INIT = new AtomicBoolean();

  private IbvLibrary() {}

  /**
   * Calls {@code ibv_fork_init} once per class loader, before the first other verbs call; a failure
   * is logged (registered memory is then unsafe in a forked child, nothing else changes).
   */
  static void forkInit() {
    if (FORK_INIT.compareAndSet(false, true)) {
      int rc = IbvNative.forkInit();
      if (rc != 0) {
        LOG.log(
            Level.WARNING,
            "ibv_fork_init failed with "
                + IbvErrors.errnoName(rc)
                + " (errno "
                + rc
                + "): memory registered by VTE is not protected across fork()");
      }
    }
  }

  /**
   * @return why the shim cannot be used, or null when it is loaded and compatible
   */
  static VerbsException failure() {
    return FAILURE;
  }

  /**
   * Loads the shim from {@code resource} and checks its contract.
   *
   * @param loader class loader that sees the resource
   * @param resource where the shim is packed, normally {@link #RESOURCE}
   * @return why the shim cannot be used, or null when it is loaded and compatible
   */
  static VerbsException load(ClassLoader loader, String resource) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return new VerbsException(
          VerbsError.NOT_SUPPORTED,
          "the ibverbs shim is built for linux/x86_64 only, this is "
              + os
              + "/"
              + arch
              + "; "
              + USE_SOFT);
    }
    try {
      NativeLibraryLoader.load(loader, resource);
    } catch (FileNotFoundException e) {
      return new VerbsException(
          VerbsError.NOT_SUPPORTED,
          "the ibverbs JNI shim "
              + resource
              + " is not in this jar: it was built where the verbs headers (/usr/include/infiniband/verbs.h from"
              + " libibverbs-dev) were missing; install them and rebuild, or "
              + USE_SOFT,
          e);
    } catch (IOException e) {
      return new VerbsException(
          VerbsError.IO_ERROR,
          "could not extract the ibverbs JNI shim to a temporary directory: "
              + e
              + " (choose an executable directory with -D"
              + NativeLibraryLoader.DIRECTORY_PROPERTY
              + "=<dir>); "
              + USE_SOFT,
          e);
    } catch (UnsatisfiedLinkError e) {
      String msg = String.valueOf(e.getMessage());
      if (msg.contains("libibverbs.so.1")) {
        return new VerbsException(
            VerbsError.NOT_SUPPORTED,
            "libibverbs.so.1 is missing or unusable (install it:"
                + " Debian/Ubuntu apt-get install libibverbs1, RHEL dnf install rdma-core): "
                + msg
                + "; "
                + USE_SOFT,
            e);
      }
      if (msg.contains("failed to map segment") || msg.contains("operation not permitted")) {
        return new VerbsException(
            VerbsError.NOT_SUPPORTED,
            "the ibverbs JNI shim cannot be mapped executable from "
                + NativeLibraryLoader.directory()
                + " (mounted noexec?): "
                + msg
                + "; choose another directory with -D"
                + NativeLibraryLoader.DIRECTORY_PROPERTY
                + "=<dir>, or "
                + USE_SOFT,
            e);
      }
      return new VerbsException(
          VerbsError.NOT_SUPPORTED,
          "the ibverbs JNI shim failed to load: " + msg + "; " + USE_SOFT,
          e);
    }
    String mismatch = checkContract(IbvNative.abiVersion(), IbvNative.layout());
    return mismatch == null
        ? null
        : new VerbsException(VerbsError.NOT_SUPPORTED, mismatch + "; " + USE_SOFT);
  }

  /**
   * Compares the shim's contract with this jar's.
   *
   * @param abiVersion the shim's ABI version
   * @param layout the shim's layout probe, as {@link IbvNative#layout()}
   * @return null when they match, else a message naming the first difference
   */
  static String checkContract(int abiVersion, int[] layout) {
    if (abiVersion != IbvNative.ABI_VERSION) {
      return "the ibverbs shim speaks ABI "
          + abiVersion
          + " but this jar needs "
          + IbvNative.ABI_VERSION;
    }
    String[] names = {
      "WorkRequestBatch.STRIDE",
      "WorkRequestBatch.OFF_WR_ID",
      "WorkRequestBatch.OFF_LOCAL_ADDR",
      "WorkRequestBatch.OFF_REMOTE_ADDR",
      "WorkRequestBatch.OFF_LENGTH",
      "WorkRequestBatch.OFF_LKEY",
      "WorkRequestBatch.OFF_RKEY",
      "WorkRequestBatch.OFF_IMM",
      "WorkRequestBatch.OFF_OPCODE",
      "WorkRequestBatch.OFF_FLAGS",
      "WorkCompletionBatch.STRIDE",
      "WorkCompletionBatch.OFF_WR_ID",
      "WorkCompletionBatch.OFF_BYTE_LEN",
      "WorkCompletionBatch.OFF_QP_NUM",
      "WorkCompletionBatch.OFF_STATUS",
      "WorkCompletionBatch.OFF_OPCODE",
      "WorkCompletionBatch.OFF_VENDOR_ERR",
      "WorkCompletionBatch.OFF_IMM"
    };
    int[] expected = {
      WorkRequestBatch.STRIDE,
      WorkRequestBatch.OFF_WR_ID,
      WorkRequestBatch.OFF_LOCAL_ADDR,
      WorkRequestBatch.OFF_REMOTE_ADDR,
      WorkRequestBatch.OFF_LENGTH,
      WorkRequestBatch.OFF_LKEY,
      WorkRequestBatch.OFF_RKEY,
      WorkRequestBatch.OFF_IMM,
      WorkRequestBatch.OFF_OPCODE,
      WorkRequestBatch.OFF_FLAGS,
      WorkCompletionBatch.STRIDE,
      WorkCompletionBatch.OFF_WR_ID,
      WorkCompletionBatch.OFF_BYTE_LEN,
      WorkCompletionBatch.OFF_QP_NUM,
      WorkCompletionBatch.OFF_STATUS,
      WorkCompletionBatch.OFF_OPCODE,
      WorkCompletionBatch.OFF_VENDOR_ERR,
      WorkCompletionBatch.OFF_IMM
    };
    if (layout == null || layout.length != expected.length) {
      return "the ibverbs shim reports "
          + (layout == null ? "no" : layout.length)
          + " layout values, expected "
          + expected.length;
    }
    for (int i = 0; i < expected.length; i++) {
      if (layout[i] != expected[i]) {
        return "the ibverbs shim lays out "
            + names[i]
            + " as "
            + layout[i]
            + " but the Java side uses "
            + expected[i];
      }
    }
    return null;
  }

  /**
   * Loads a shared library packed in a jar: copies it to a fresh private directory under {@code
   * java.io.tmpdir} (or under {@value #DIRECTORY_PROPERTY}, for hosts whose /tmp is mounted
   * noexec), loads it, then deletes the copy and the directory (the mapping stays valid after
   * unlinking on Linux), as Netty does.
   */
  static final class NativeLibraryLoader {

    /** System property naming the directory the library is unpacked under. */
    static final String DIRECTORY_PROPERTY = "vte.ibverbs.libraryDir";

    private NativeLibraryLoader() {}

    /**
     * @return the directory the library is unpacked under
     */
    static Path directory() {
      String dir = System.getProperty(DIRECTORY_PROPERTY);
      return Path.of(dir != null && !dir.isBlank() ? dir : System.getProperty("java.io.tmpdir"));
    }

    /**
     * @param loader class loader that sees the resource
     * @param resource resource path, e.g. {@code META-INF/native/libx.so}
     * @throws FileNotFoundException when the resource is not on the class path
     * @throws IOException when it cannot be copied out
     * @throws UnsatisfiedLinkError when the dynamic linker rejects it (e.g. a missing dependency)
     */
    static void load(ClassLoader loader, String resource) throws IOException {
      Path dir = null;
      Path file = null;
      try (InputStream in = loader.getResourceAsStream(resource)) {
        if (in == null) {
          throw new FileNotFoundException(resource);
        }
        dir = Files.createTempDirectory(Files.createDirectories(directory()), "vte-native-");
        file = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Files.copy(in, file);
        System.load(file.toAbsolutePath().toString());
      } finally {
        if (file != null) {
          Files.deleteIfExists(file);
        }
        if (dir != null) {
          Files.deleteIfExists(dir);
        }
      }
    }
  }
}
