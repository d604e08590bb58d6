package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Javadoc block tags start their own line: a formatter that joins "{@code @param x the value
 * @return this}" onto one line makes javadoc render "@return this" as part of the parameter's text
 * (doclint, which the build runs, does not see it).
 */
class JavadocTagsTest {

  /** A javadoc line with text and then a block tag. */
  private static final Pattern TAG_AFTER_TEXT =
      Pattern.compile("^\\s*\\*\\s+\\S[^{}]*?\\s@(param|return|throws)\\b.*");

  @Test
  void noBlockTagFollowsTextOnTheSameLine() throws IOException {
    Path modules = Path.of(System.getProperty("vte.project.dir")).resolve("modules");
    List<String> bad = new ArrayList<>();
    int files = 0;
    try (Stream<Path> all = Files.walk(modules)) {
      for (Path p :
          all.filter(
                  f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/"))
              .toList()) {
        files++;
        List<String> lines = Files.readAllLines(p);
        for (int i = 0; i < lines.size(); i++) {
          if (TAG_AFTER_TEXT.matcher(lines.get(i)).matches()) {
            bad.add(modules.relativize(p) + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertTrue(files > 100, "sources found: " + files);
    assertEquals(List.of(), bad, "block tags inside another tag's text");
  }
}
