package io.vte.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * How the values of one type are read from JSON (strictly), written to JSON, copied and validated.
 *
 * @param <V> the value type
 */
public interface OptionKind<V> {

  /**
   * @param json the JSON value (a String, Number, Boolean, JsonObject, JsonArray or null)
   * @param label what an option is called in messages
   * @param path the field's JSON path
   * @return the value
   * @throws VteException INVALID_CONFIGURATION naming the path and the value when its type is wrong
   */
  V read(Object json, String label, String path);

  /**
   * @param value a value, not null
   * @return its JSON form
   */
  Object write(V value);

  /**
   * @param value a value or null
   * @return a copy that shares no mutable state with {@code value}
   */
  default V copy(V value) {
    return value;
  }

  /**
   * Validates what is inside a value (the fields of nested options); nothing by default.
   *
   * @param value a value, not null
   * @param label what an option is called in messages
   * @param path the field's JSON path
   */
  default void validate(V value, String label, String path) {}

  /**
   * @return the JSON type in words, for documentation
   */
  default String type() {
    return "value";
  }

  /** A JSON string; JSON null reads as null. */
  OptionKind<String> STRING = plain(String.class, true, "a string", "string");

  /** A JSON boolean. */
  OptionKind<Boolean> BOOLEAN = plain(Boolean.class, false, "true or false", "boolean");

  /**
   * @return values that are one JSON type as they are ({@code String}, {@code Boolean})
   */
  private static <V> OptionKind<V> plain(
      Class<V> type, boolean nullable, String expected, String typeName) {
    return new OptionKind<>() {
      @Override
      public String type() {
        return typeName;
      }

      @Override
      public V read(Object json, String label, String path) {
        if (json == null && nullable) {
          return null;
        }
        if (!type.isInstance(json)) {
          throw InvalidOptionException.wrongType(label, path, json, expected);
        }
        return type.cast(json);
      }

      @Override
      public Object write(V value) {
        return value;
      }
    };
  }

  /**
   * A JSON number with an integral value that fits in 32 bits ({@code 2} or {@code 2.0}, never
   * {@code 2.5}).
   */
  OptionKind<Integer> INT =
      new OptionKind<>() {
        @Override
        public String type() {
          return "integer";
        }

        @Override
        public Integer read(Object json, String label, String path) {
          return whole(
                  json,
                  31,
                  label,
                  path,
                  "a whole number in " + Integer.MIN_VALUE + ".." + Integer.MAX_VALUE)
              .intValue();
        }

        @Override
        public Object write(Integer value) {
          return value;
        }
      };

  /**
   * A byte count that fits in 32 bits: a JSON whole number, or a string with a binary suffix as the
   * command line takes it ({@code "64K"}, {@code "4M"}, {@link ByteSizes}); written as a number.
   */
  OptionKind<Integer> BYTES =
      new OptionKind<>() {
        @Override
        public String type() {
          return "bytes";
        }

        @Override
        public Integer read(Object json, String label, String path) {
          if (!(json instanceof String text)) {
            return INT.read(json, label, path);
          }
          String expected = "a whole number of bytes or a size like \"64K\", \"4M\", \"1G\"";
          long bytes;
          try {
            bytes = ByteSizes.parse(text);
          } catch (IllegalArgumentException e) {
            throw InvalidOptionException.wrongType(label, path, json, expected);
          }
          if (bytes != (int) bytes) {
            throw InvalidOptionException.wrongType(label, path, json, expected + " below 2G");
          }
          return (int) bytes;
        }

        @Override
        public Object write(Integer value) {
          return value;
        }
      };

  /** A duration written as a JSON whole number of milliseconds; JSON null reads as null. */
  OptionKind<Duration> MILLIS = wholeNumberOf(ChronoUnit.MILLIS, "milliseconds");

  /** A duration written as a JSON whole number of microseconds; JSON null reads as null. */
  OptionKind<Duration> MICROS = wholeNumberOf(ChronoUnit.MICROS, "microseconds");

  /**
   * @return durations written as a JSON whole number of {@code unit}s ({@code unitName} in
   *     messages); JSON null reads as null
   */
  private static OptionKind<Duration> wholeNumberOf(ChronoUnit unit, String unitName) {
    return new OptionKind<>() {
      @Override
      public String type() {
        return unitName;
      }

      @Override
      public Duration read(Object json, String label, String path) {
        if (json == null) {
          return null;
        }
        return Duration.of(
            whole(json, 63, label, path, "a whole number of " + unitName).longValue(), unit);
      }

      @Override
      public Object write(Duration value) {
        return value.dividedBy(unit.getDuration());
      }
    };
  }

  /** A JSON array of strings; JSON null reads as null. */
  OptionKind<List<String>> STRING_LIST = listOf(STRING);

  /**
   * @param element the kind of each element
   * @param <E> the element type
   * @return a JSON array of such elements; JSON null reads as null, elements are named {@code
   *     path[i]}
   */
  static <E> OptionKind<List<E>> listOf(OptionKind<E> element) {
    return new OptionKind<>() {
      @Override
      public String type() {
        return "list of " + element.type();
      }

      @Override
      public List<E> read(Object json, String label, String path) {
        if (json == null) {
          return null;
        }
        if (!(json instanceof JsonArray array)) {
          throw InvalidOptionException.wrongType(label, path, json, "an array");
        }
        List<E> out = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
          out.add(element.read(array.getValue(i), label, path + "[" + i + "]"));
        }
        return out;
      }

      @Override
      public Object write(List<E> value) {
        JsonArray array = new JsonArray();
        value.forEach(e -> array.add(e == null ? null : element.write(e)));
        return array;
      }

      @Override
      public List<E> copy(List<E> value) {
        if (value == null) {
          return null;
        }
        List<E> out = new ArrayList<>(value.size());
        value.forEach(e -> out.add(element.copy(e)));
        return out;
      }

      @Override
      public void validate(List<E> value, String label, String path) {
        for (int i = 0; i < value.size(); i++) {
          if (value.get(i) != null) {
            element.validate(value.get(i), label, path + "[" + i + "]");
          }
        }
      }
    };
  }

  /**
   * @param table the nested class's fields
   * @param factory makes nested options with their defaults
   * @param <N> the nested options class
   * @return a JSON object read into nested options through their own table; JSON null reads as null
   */
  static <N> OptionKind<N> object(OptionFields<N> table, Supplier<N> factory) {
    return new OptionKind<>() {
      @Override
      public String type() {
        return "object";
      }

      @Override
      public N read(Object json, String label, String path) {
        if (json == null) {
          return null;
        }
        if (!(json instanceof JsonObject object)) {
          throw InvalidOptionException.wrongType(label, path, json, "an object");
        }
        N nested = factory.get();
        table.read(object, nested, label, path + ".");
        return nested;
      }

      @Override
      public Object write(N value) {
        return table.toJson(value);
      }

      @Override
      public N copy(N value) {
        if (value == null) {
          return null;
        }
        N copy = factory.get();
        table.copy(value, copy);
        return copy;
      }

      @Override
      public void validate(N value, String label, String path) {
        table.validate(value, label, path + ".");
      }
    };
  }

  /**
   * @return the value of an integral JSON number of at most {@code bits} bits (sign apart)
   */
  private static BigInteger whole(
      Object json, int bits, String label, String path, String expected) {
    BigInteger n = integral(json);
    if (n == null || n.bitLength() > bits) {
      throw InvalidOptionException.wrongType(label, path, json, expected);
    }
    return n;
  }

  /**
   * @return the value of an integral JSON number, or null when {@code json} is not one
   */
  private static BigInteger integral(Object json) {
    if (json instanceof Integer
        || json instanceof Long
        || json instanceof Short
        || json instanceof Byte) {
      return BigInteger.valueOf(((Number) json).longValue());
    }
    if (json instanceof BigInteger b) {
      return b;
    }
    if (json instanceof Double || json instanceof Float || json instanceof BigDecimal) {
      BigDecimal d;
      try {
        d = new BigDecimal(json.toString());
      } catch (NumberFormatException e) {
        return null; // NaN or infinite
      }
      try {
        return d.toBigIntegerExact();
      } catch (ArithmeticException e) {
        return null;
      }
    }
    return null;
  }
}
