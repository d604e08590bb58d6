package io.vte.verbs.ibv;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads a shared library packed in a jar: copies it to a fresh private temporary directory, loads
 * it, then deletes the copy and the directory (the mapping stays valid after unlinking on Linux),
 * as Netty does.
 */
final class NativeLibraryLoader {

  private NativeLibraryLoader() {}

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
      dir = Files.createTempDirectory("vte-native-");
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
