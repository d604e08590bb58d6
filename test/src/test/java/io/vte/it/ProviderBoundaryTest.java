package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No main code outside a provider names the provider's implementation: the engine, the CLI and the
 * tools reach a verbs provider through the verbs SPI ({@code VerbsProviders}, {@code VerbsProvider}
 * and its capabilities such as {@code faultInjector()}) and the etcd store through {@code
 * MetadataStores}, the Mooncake transport through {@code PeerTransportProvider} (its own API
 * classes stay usable on their own), never by a downcast or a constructor call. A provider's
 * implementation is every type of its module but the few it publishes (its settings), listed here.
 * Test code may reach in (a test drives the soft NIC's internals to stage a fault).
 */
class ProviderBoundaryTest {

  /**
   * A provider module and the types of it other modules may name.
   *
   * @param module its directory under the repository root
   * @param published fully qualified names of the types others may name
   */
  record Provider(String module, Set<String> published) {}

  static final List<Provider> PROVIDERS =
      List.of(
          new Provider(
              "modules/verbs-soft",
              Set.of("io.vte.verbs.soft.SoftVerbsConfig", "io.vte.verbs.soft.SoftDeviceConfig")),
          new Provider("modules/verbs-ibv", Set.of("io.vte.verbs.ibv.IbvSettings")),
          new Provider("modules/metadata-etcd", Set.of()),
          new Provider(
              "modules/mooncake",
              Set.of(
                  "io.vte.mooncake.MooncakeEtcd",
                  "io.vte.mooncake.MooncakeOptions",
                  "io.vte.mooncake.MooncakeSegment",
                  "io.vte.mooncake.MooncakeTarget",
                  "io.vte.mooncake.MooncakeTransport",
                  "io.vte.mooncake.SegmentDescriptor")));

  @Test
  void noMainCodeOutsideAProviderNamesItsImplementation() {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    List<String> scanned = new ArrayList<>();
    List<String> found = offenders(root, PROVIDERS, scanned);
    assertTrue(
        scanned.stream().anyMatch(p -> p.startsWith("modules/engine/")),
        "the engine's sources were scanned: " + scanned.size());
    assertTrue(
        scanned.stream().anyMatch(p -> p.startsWith("modules/cli/")), "the CLI's were scanned");
    assertEquals(List.of(), found, "main code outside a provider naming its implementation");
  }

  @Test
  void aDowncastToAProviderAndAnImportOfItsPackagesAreFound(@TempDir Path root) throws IOException {
    write(
        root.resolve("modules/p/src/main/java/io/vte/p/PProvider.java"),
        "package io.vte.p;\npublic final class PProvider {}\n");
    write(
        root.resolve("modules/p/src/main/java/io/vte/p/PConfig.java"),
        "package io.vte.p;\npublic record PConfig() {}\n");
    write(
        root.resolve("modules/p/src/main/java/io/vte/p/impl/Nic.java"),
        "package io.vte.p.impl;\npublic final class Nic {}\n");
    write(
        root.resolve("modules/engine/src/main/java/io/vte/engine/Diag.java"),
        "package io.vte.engine;\n\nimport io.vte.p.PConfig;\n\nclass Diag {\n"
            + "  Object f(Object o) { return ((io.vte.p.PProvider) o); }\n}\n");
    write(
        root.resolve("modules/cli/src/main/java/io/vte/cli/Wild.java"),
        "package io.vte.cli;\n\nimport io.vte.p.impl.*;\n\nclass Wild {}\n");
    write(
        root.resolve("modules/cli/src/test/java/io/vte/cli/InTest.java"),
        "package io.vte.cli;\n\nimport io.vte.p.impl.Nic;\n\nclass InTest {}\n");
    List<String> scanned = new ArrayList<>();
    List<String> found =
        offenders(root, List.of(new Provider("modules/p", Set.of("io.vte.p.PConfig"))), scanned);
    assertEquals(
        List.of(
            "modules/cli/src/main/java/io/vte/cli/Wild.java:3 io.vte.p.impl.*",
            "modules/engine/src/main/java/io/vte/engine/Diag.java:6 io.vte.p.PProvider"),
        found);
    assertEquals(2, scanned.size(), "main code outside the provider only: " + scanned);
  }

  /**
   * @param root the repository root
   * @param providers the provider modules
   * @param scanned receives every main source looked at
   * @return {@code path:line name} of every mention of a provider's implementation type (or a
   *     wildcard import of one of its packages) in main code outside that provider
   */
  static List<String> offenders(Path root, List<Provider> providers, List<String> scanned) {
    List<Path> sources = MainSources.under(root);
    List<String> found = new ArrayList<>();
    for (Provider provider : providers) {
      Set<String> implementation = new TreeSet<>();
      Set<String> packages = new TreeSet<>();
      for (Path p : sources) {
        String name = p.getFileName().toString();
        if (p.startsWith(provider.module()) && name.endsWith(".java")) {
          String pkg = MainSources.packageOf(p);
          packages.add(pkg);
          String type = pkg + "." + name.substring(0, name.length() - ".java".length());
          if (!name.equals("package-info.java") && !provider.published().contains(type)) {
            implementation.add(type);
          }
        }
      }
      List<Pattern> patterns = new ArrayList<>();
      implementation.forEach(t -> patterns.add(Pattern.compile("\\b" + Pattern.quote(t) + "\\b")));
      packages.forEach(
          pkg -> patterns.add(Pattern.compile("import\\s+" + Pattern.quote(pkg) + "\\.\\*")));
      for (Path p : sources) {
        if (p.startsWith(provider.module()) || !p.toString().endsWith(".java")) {
          continue;
        }
        String path = p.toString().replace('\\', '/');
        if (!scanned.contains(path)) {
          scanned.add(path);
        }
        List<String> lines = MainSources.lines(root.resolve(p));
        for (int i = 0; i < lines.size(); i++) {
          for (Pattern pattern : patterns) {
            var m = pattern.matcher(lines.get(i));
            if (m.find()) {
              found.add(path + ":" + (i + 1) + " " + m.group().replaceFirst("^import\\s+", ""));
            }
          }
        }
      }
    }
    found.sort(null);
    return found;
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }
}
