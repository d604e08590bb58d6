package io.vte.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Byte counts as the command line takes them: a number of bytes with an optional binary suffix K, M
 * or G (also written KiB, MiB, GiB; powers of 1024, any case), e.g. {@code 4096}, {@code 64K},
 * {@code 4M}, {@code 1GiB}. The range each flag allows is checked by its command, which names the
 * flag.
 */
public final class ByteSize {

  private static final Pattern FORM =
      Pattern.compile("(-?\\d{1,19})([KMG](?:iB)?)?", Pattern.CASE_INSENSITIVE);

  private ByteSize() {}

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

  /** Converts a flag's value to an int byte count. */
  public static final class IntConverter implements ITypeConverter<Integer> {
    /** Creates the converter (picocli instantiates it). */
    public IntConverter() {}

    @Override
    public Integer convert(String value) {
      long bytes = LongConverter.bytes(value);
      if (bytes > Integer.MAX_VALUE || bytes < Integer.MIN_VALUE) {
        throw new TypeConversionException(
            "'" + value + "' is " + bytes + " bytes, more than this flag can hold");
      }
      return (int) bytes;
    }
  }

  /** Converts a flag's value to a long byte count. */
  public static final class LongConverter implements ITypeConverter<Long> {
    /** Creates the converter (picocli instantiates it). */
    public LongConverter() {}

    @Override
    public Long convert(String value) {
      return bytes(value);
    }

    static long bytes(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
