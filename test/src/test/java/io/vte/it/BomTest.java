package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * modules/bom lists exactly the artifacts the build publishes: every module under modules/ but the
 * BOM itself.
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
