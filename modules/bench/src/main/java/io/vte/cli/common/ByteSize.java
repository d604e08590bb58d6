package io.vte.cli.common;

import io.vte.api.ByteSizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Byte counts as the command line takes them, in the form {@link ByteSizes} reads (also that of
 * size options in JSON files), e.g. {@code 4096}, {@code 64K}, {@code 4M}, {@code 1GiB}. The range
 * each flag allows is checked by its command, which names the flag.
 */
public final class ByteSize {

  private ByteSize() {}

  /**
   * @param text e.g. {@code 64K}
   * @return the bytes
   * @throws IllegalArgumentException naming the text, when it is not a size or too large for a long
   */
  public static long parse(String text) {
    return ByteSizes.parse(text);
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
