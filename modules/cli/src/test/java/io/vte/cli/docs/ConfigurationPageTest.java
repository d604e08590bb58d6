package io.vte.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.AuthKey;
import io.vte.api.AuthOptions;
import io.vte.api.EngineOptions;
import io.vte.api.IbverbsOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.OptionFields;
import io.vte.api.TlsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's option reference is the options' field tables: one row per option, nested
 * ones by their path ({@code metadata.leaseTtlMs}), with the type, default and range the code
 * declares and a meaning. An option added, removed or changed in code without the page fails here,
 * naming the option and printing the row the code expects.
 */
class ConfigurationPageTest {

  static final Path PAGE = DocsTest.ROOT.resolve("docs/configuration.md");
  private static final String BEGIN = "<!-- options:begin -->";
  private static final String END = "<!-- options:end -->";

  /** Type, default and range of every option, by path, in table order. */
  static Map<String, List<String>> expectedRows() {
    Map<String, List<String>> rows = new LinkedHashMap<>();
    add(rows, "", EngineOptions.FIELDS, new EngineOptions());
    add(rows, "ibverbs.", IbverbsOptions.FIELDS, new IbverbsOptions());
    add(rows, "metadata.", MetadataOptions.FIELDS, new MetadataOptions());
    add(rows, "auth.", AuthOptions.FIELDS, new AuthOptions());
    add(rows, "auth.acceptKeys[].", AuthKey.FIELDS, new AuthKey());
    add(rows, "tls.", TlsOptions.FIELDS, new TlsOptions());
    rows.forEach(
        (name, cells) -> {
          String nested =
              cells.get(0).equals("object")
                  ? name + "."
                  : cells.get(0).equals("list of object") ? name + "[]." : null;
          assertTrue(
              nested == null || rows.keySet().stream().anyMatch(k -> k.startsWith(nested)),
              "option '" + name + "' is an object: list its fields' table here too");
        });
    return rows;
  }

  private static <O> void add(
      Map<String, List<String>> rows, String prefix, OptionFields<O> table, O defaults) {
    for (OptionFields.Field<O, ?> f : table.fields()) {
      String range = f.range(defaults);
      rows.put(
          prefix + f.name(),
          List.of(f.type(), show(f.defaultJson()), range.isEmpty() ? "-" : cell(range)));
    }
  }

  private static String show(Object json) {
    if (json == null) {
      return "unset";
    }
    String text =
        json instanceof String s
            ? "\"" + s + "\""
            : json instanceof JsonObject || json instanceof JsonArray
                ? json.toString()
                : String.valueOf(json);
    return "`" + text + "`";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }

  /** The page's rows: option path to its cells after the first (type, default, range, meaning). */
  static Map<String, List<String>> pageRows() throws IOException {
    String page = Files.readString(PAGE);
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    assertTrue(begin >= 0 && end > begin, "docs/configuration.md holds " + BEGIN + " ... " + END);
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (String line : page.substring(begin + BEGIN.length(), end).split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      for (String c :
          line.substring(1, line.length() - (line.endsWith("|") ? 1 : 0))
              .split("(?<!\\\\)\\|", -1)) {
        cells.add(c.trim());
      }
      String name = cells.get(0).replace("`", "");
      assertTrue(rows.put(name, cells.subList(1, cells.size())) == null, "one row for " + name);
    }
    return rows;
  }

  @Test
  void everyOptionHasItsRowWithTheCodesTypeDefaultAndRange() throws IOException {
    Map<String, List<String>> expected = expectedRows();
    Map<String, List<String>> page = pageRows();
    List<String> problems = new ArrayList<>();
    expected.forEach(
        (name, cells) -> {
          List<String> row = page.get(name);
          String wanted = "| `" + name + "` | " + String.join(" | ", cells) + " | MEANING |";
          if (row == null) {
            problems.add("option '" + name + "' has no row; add " + wanted);
          } else if (row.size() != 4) {
            problems.add(
                "option '"
                    + name
                    + "': the row has "
                    + row.size()
                    + " cells after the name, not 4");
          } else if (!row.subList(0, 3).equals(cells)) {
            problems.add(
                "option '"
                    + name
                    + "': the page says "
                    + row.subList(0, 3)
                    + ", the code "
                    + cells);
          } else if (row.get(3).isEmpty()) {
            problems.add("option '" + name + "' has no meaning");
          }
        });
    page.keySet().stream()
        .filter(name -> !expected.containsKey(name))
        .forEach(
            name -> problems.add("option '" + name + "' on the page is no option of the code"));
    assertEquals(List.of(), problems, "docs/configuration.md against the options' field tables");
    assertEquals(
        List.copyOf(expected.keySet()), List.copyOf(page.keySet()), "the rows in table order");
  }
}
