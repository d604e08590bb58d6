package io.vte.it;

import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Live threads of a JVM counted per name pattern: the last run of digits in a name is folded to
 * {@code #}, so {@code pool-3-thread-7} counts under {@code pool-3-thread-#} with the rest of its
 * pool, and a thread that appears or leaks is named by its kind.
 *
 * @param counts live threads per folded name, sorted by name
 */
public record ThreadCensus(Map<String, Integer> counts) {

  private static final Pattern LAST_NUMBER = Pattern.compile("\\d+(?=\\D*$)");

  /** Keeps a sorted copy. */
  public ThreadCensus {
    counts = Collections.unmodifiableSortedMap(new TreeMap<>(counts));
  }

  /**
   * @return the live threads of this JVM now
   */
  public static ThreadCensus take() {
    Map<String, Integer> counts = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive()) {
        counts.merge(fold(t.getName()), 1, Integer::sum);
      }
    }
    return new ThreadCensus(counts);
  }

  /**
   * @param name a thread name
   * @return the name with its last run of digits replaced by {@code #}
   */
  public static String fold(String name) {
    return LAST_NUMBER.matcher(name).replaceFirst("#");
  }

  /**
   * @return live threads in all
   */
  public int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * @param pattern a folded name
   * @return live threads under it, 0 if none
   */
  public int count(String pattern) {
    return counts.getOrDefault(pattern, 0);
  }

  /**
   * @return the census as JSON, one field per folded name
   */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    counts.forEach(json::put);
    return json;
  }

  /**
   * @param json what {@link #toJson()} wrote
   * @return the census
   */
  public static ThreadCensus fromJson(JsonObject json) {
    Map<String, Integer> counts = new TreeMap<>();
    json.forEach(e -> counts.put(e.getKey(), ((Number) e.getValue()).intValue()));
    return new ThreadCensus(counts);
  }

  @Override
  public String toString() {
    return counts.toString();
  }
}
