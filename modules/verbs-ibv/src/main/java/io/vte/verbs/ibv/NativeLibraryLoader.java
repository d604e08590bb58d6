package io.vte.verbs.ibv;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads a shared library packed in a jar: copies it to a fresh private directory under {@code
 * java.io.tmpdir} (or under {@value #DIRECTORY_PROPERTY}, for hosts whose /tmp is mounted noexec),
 * loads it, then deletes the copy and the directory (the mapping stays valid after unlinking on
 * Linux), as Netty does.
 */
final class NativeLibraryLoader {

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
