package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * modules/bom lists exactly the artifacts the build publishes (every module under modules/ but the
 * BOM itself), and pins the third-party versions VTE is built with.
 */
class BomTest {

  private static final Pattern MODULE = Pattern.compile("<module>modules/([^<]+)</module>");
  private static final Pattern ARTIFACT = Pattern.compile("<artifactId>(vte-[^<]+)</artifactId>");

  @Test
  void theBomListsEveryPublishedModuleAndNothingElse() throws IOException {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    Set<String> published = new TreeSet<>();
    Matcher modules = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
    while (modules.find()) {
      String artifact =
          ownArtifactId(
              Files.readString(
                  root.resolve("modules").resolve(modules.group(1)).resolve("pom.xml")));
      if (!artifact.equals("vte-bom")) {
        published.add(artifact);
      }
    }
    assertFalse(published.isEmpty(), "no modules found in " + root.resolve("pom.xml"));
    String bom = Files.readString(root.resolve("modules/bom/pom.xml"));
    String managed = bom.substring(bom.indexOf("<dependencyManagement>"));
    Set<String> listed = new TreeSet<>();
    Matcher m = ARTIFACT.matcher(managed);
    while (m.find()) {
      listed.add(m.group(1));
    }
    assertEquals(published, listed, "modules/bom/pom.xml must manage every published module");
  }

  /**
   * A project that takes vte-metadata-etcd as a library with versions from vte-bom only ({@code
   * test/bom-user}) resolves every third-party artifact at the version VTE's own build of that
   * module resolves, the one it is built and tested with (before, jetcd pulled in other versions of
   * Guava, Netty, vertx-grpc and SLF4J).
   */
  @Test
  void aProjectUsingVteMetadataEtcdThroughTheBomResolvesTheVersionsVteIsBuiltWith()
      throws Exception {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    Map<String, String> built =
        thirdParty(resolved(root, "-pl", "modules/metadata-etcd", "-f", "pom.xml"));
    Map<String, String> user = thirdParty(resolved(root, "-f", "test/bom-user/pom.xml"));
    assertTrue(
        built.containsKey("io.etcd:jetcd-core") && built.containsKey("org.slf4j:slf4j-api"),
        "the module's dependencies: " + built);
    assertEquals(built, user, "versions of a vte-bom user against VTE's build");
  }

  @Test
  void theBomsVersionPropertiesAreTheRootPoms() throws IOException {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    Map<String, String> bom = properties(Files.readString(root.resolve("modules/bom/pom.xml")));
    Map<String, String> parent = properties(Files.readString(root.resolve("pom.xml")));
    assertFalse(bom.isEmpty(), "the BOM pins third-party versions");
    bom.forEach(
        (name, version) ->
            assertEquals(parent.get(name), version, name + " in modules/bom/pom.xml and pom.xml"));
  }

  private static final Pattern VERSION_PROPERTY =
      Pattern.compile("<([a-z0-9]+)\\.version>([^<]+)</\\1\\.version>");

  private static Map<String, String> properties(String pom) {
    Map<String, String> out = new TreeMap<>();
    Matcher m = VERSION_PROPERTY.matcher(pom);
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  /** {@code mvn dependency:list} of runtime scope, in this build's repository, as lines. */
  private static List<String> resolved(Path root, String... project) throws Exception {
    Path out = Files.createTempFile("vte-deps", ".txt");
    try {
      List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-ntp", "-q"));
      // "offline=true" when this build runs offline (a plain Boolean cannot be a system property)
      if (System.getProperty("vte.it.mavenOffline", "").equals("offline=true")) {
        cmd.add("-o");
      }
      String repo = System.getProperty("vte.it.mavenRepo");
      if (repo != null && !repo.isBlank()) {
        cmd.add("-Dmaven.repo.local=" + repo);
      }
      cmd.addAll(List.of(project));
      cmd.addAll(
          List.of(
              "dependency:list",
              "-DincludeScope=runtime",
              "-DoutputFile=" + out,
              "-DappendOutput=false"));
      Process p =
          new ProcessBuilder(cmd)
              .directory(root.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.PIPE)
              .start();
      String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not end within 5 minutes: " + log);
      }
      assertEquals(0, p.exitValue(), cmd + ": " + log);
      return Files.readAllLines(out);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static final Pattern COORDINATES =
      Pattern.compile("\\s*([^:\\s]+):([^:]+):[^:]+:(?:[^:]+:)?([^:]+):(compile|runtime)\\b.*");

  /** groupId:artifactId to version, of every artifact that is not VTE's own. */
  private static Map<String, String> thirdParty(List<String> lines) {
    Map<String, String> out = new TreeMap<>();
    for (String line : lines) {
      Matcher m = COORDINATES.matcher(line);
      if (m.matches() && !m.group(1).equals("io.vte")) {
        out.put(m.group(1) + ":" + m.group(2), m.group(3));
      }
    }
    return out;
  }

  /** The module's own artifactId: the first one after its parent block. */
  private static String ownArtifactId(String pom) {
    int afterParent = pom.indexOf("</parent>");
    Matcher m = ARTIFACT.matcher(pom);
    if (!m.find(Math.max(afterParent, 0))) {
      throw new AssertionError("no artifactId in " + pom.substring(0, Math.min(200, pom.length())));
    }
    return m.group(1);
  }
}
