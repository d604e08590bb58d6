package io.vte.api;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte counts as people write them, on the command line and in option files alike: a number of
 * bytes with an optional binary suffix K, M or G (also written KiB, MiB, GiB; powers of 1024, any
 * case), e.g. {@code 4096}, {@code 64K}, {@code 4M}, {@code 1GiB}.
 */
public final class ByteSizes {

  private static final Pattern FORM =
      Pattern.compile("(-?\\d{1,19})([KMG](?:iB)?)?", Pattern.CASE_INSENSITIVE);

  private ByteSizes() {}

  /**
   * @param text e.g. {@code 64K}
   * @return the bytes
   * @throws IllegalArgumentException naming the text, when it is not a size or too large for a long
   */
  public static long parse(String text) {
    Matcher m = FORM.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size like 4096, 64K, 4M or 1G");
    }
    int shift =
        m.group(2) == null
            ? 0
            : switch (m.group(2).substring(0, 1).toUpperCase(Locale.ROOT)) {
              case "K" -> 10;
              case "M" -> 20;
              default -> 30;
            };
    long value;
    try {
      value = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    if (Math.abs(value) > Long.MAX_VALUE >> shift) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    return value << shift;
  }
}
