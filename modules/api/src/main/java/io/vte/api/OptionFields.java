package io.vte.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one table of the fields of an options class: for each field its JSON name, its {@link Kind},
 * its default, its range and its getter and setter. The class's JSON ({@link #read}, {@link
 * #toJson}), its defaults ({@link #applyDefaults}) and its validation ({@link #validate}) all come
 * from this table, so a field is declared once.
 *
 * <p>Reading is strict: an unknown key, or a value of another JSON type than the field's (2.5 or
 * {@code "2"} for an integer, a number in a list of strings, a string for an object) is an {@link
 * InvalidOptionException} ({@link ErrorCode#INVALID_CONFIGURATION}) naming the field and the bad
 * value; nothing is coerced.
 *
 * @param <O> the options class
 */
public final class OptionFields<O> {

  private final Map<String, Field<O, ?>> fields = new LinkedHashMap<>();

  private OptionFields() {}

  private void add(Field<O, ?> f) {
    if (fields.put(f.name, f) != null) {
      throw new IllegalArgumentException("field '" + f.name + "' declared twice");
    }
  }

  /**
   * @param fields the fields, in JSON order
   * @param <O> the options class
   * @return the table
   */
  @SafeVarargs
  public static <O> OptionFields<O> of(Field<O, ?>... fields) {
    OptionFields<O> table = new OptionFields<>();
    for (Field<O, ?> f : fields) {
      table.add(f);
    }
    return table;
  }

  /**
   * Starts a field declaration; add its range with {@link Field#check}.
   *
   * @param name the JSON name
   * @param kind how the value is read and written
   * @param defaultValue the default, null for unset
   * @param getter reads the field
   * @param setter writes the field
   * @param <O> the options class
   * @param <V> the value type
   * @return the field
   */
  public static <O, V> Field<O, V> field(
      String name, Kind<V> kind, V defaultValue, Function<O, V> getter, BiConsumer<O, V> setter) {
    return new Field<>(name, kind, defaultValue, getter, setter);
  }

  /**
   * @return the JSON names, in table order
   */
  public Set<String> names() {
    return Collections.unmodifiableSet(fields.keySet());
  }

  /**
   * @return the fields, in table order (for code that documents them, e.g. the configuration page)
   */
  public Collection<Field<O, ?>> fields() {
    return Collections.unmodifiableCollection(fields.values());
  }

  /**
   * @param name a JSON name
   * @return the field's default, null when it has none
   * @throws IllegalArgumentException for an unknown name
   */
  public Object defaultOf(String name) {
    Field<O, ?> f = fields.get(name);
    if (f == null) {
      throw new IllegalArgumentException("no field " + name);
    }
    return f.defaultValue;
  }

  /**
   * Sets every field to its default.
   *
   * @param target the options to reset
   */
  public void applyDefaults(O target) {
    for (Field<O, ?> f : fields.values()) {
      f.reset(target);
    }
  }

  /**
   * Copies every field, nested options and lists copied too.
   *
   * @param source the options to copy
   * @param target the options to overwrite
   */
  public void copy(O source, O target) {
    for (Field<O, ?> f : fields.values()) {
      f.copy(source, target);
    }
  }

  /**
   * Reads the keys present in {@code json} into {@code target}; absent keys keep their values.
   * Checks types, not ranges.
   *
   * @param json the JSON object
   * @param target the options to fill
   * @param label what an option is called in messages, e.g. {@code engine option}
   * @param path the JSON path of {@code json} ({@code ""} at the top, {@code "metadata."} for a
   *     nested object)
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public void read(JsonObject json, O target, String label, String path) {
    Set<String> unknown = new TreeSet<>(json.fieldNames());
    unknown.removeAll(fields.keySet());
    if (!unknown.isEmpty()) {
      List<String> named = unknown.stream().map(k -> path + k).toList();
      String known = "one of " + new TreeSet<>(fields.keySet());
      throw new InvalidOptionException(
          "unknown "
              + label
              + "(s) "
              + named
              + "; the first is '"
              + named.get(0)
              + "'; known"
              + (path.isEmpty() ? "" : " in '" + path.substring(0, path.length() - 1) + "'")
              + ": "
              + new TreeSet<>(fields.keySet()),
          named.get(0),
          null,
          known);
    }
    for (Field<O, ?> f : fields.values()) {
      if (json.containsKey(f.name)) {
        f.read(target, json.getValue(f.name), label, path + f.name);
      }
    }
  }

  /**
   * @param source the options
   * @return every field that is set (not null), in table order
   */
  public JsonObject toJson(O source) {
    JsonObject json = new JsonObject();
    for (Field<O, ?> f : fields.values()) {
      Object value = f.write(source);
      if (value != null) {
        json.put(f.name, value);
      }
    }
    return json;
  }

  /**
   * Checks every field's range, nested options included.
   *
   * @param source the options
   * @param label what an option is called in messages
   * @param path the JSON path of {@code source}
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public void validate(O source, String label, String path) {
    for (Field<O, ?> f : fields.values()) {
      f.validate(source, label, path + f.name);
    }
  }

  private static String show(Object value) {
    if (value instanceof String s) {
      return "\"" + s + "\"";
    }
    if (value instanceof JsonObject || value instanceof JsonArray) {
      return value.toString();
    }
    return String.valueOf(value);
  }

  private static InvalidOptionException invalid(
      String label, String path, Object value, String expected) {
    return new InvalidOptionException(
        label + " '" + path + "' = " + show(value) + " is invalid: expected " + expected,
        path,
        value,
        expected);
  }

  /**
   * One field of an options class.
   *
   * @param <O> the options class
   * @param <V> the value type
   */
  public static final class Field<O, V> {
    private final String name;
    private final Kind<V> kind;
    private final V defaultValue;
    private final Function<O, V> getter;
    private final BiConsumer<O, V> setter;
    private BiPredicate<O, V> valid = (o, v) -> true;
    private Function<O, String> expected = o -> "";

    private Field(
        String name, Kind<V> kind, V defaultValue, Function<O, V> getter, BiConsumer<O, V> setter) {
      this.name = name;
      this.kind = kind;
      this.defaultValue = defaultValue;
      this.getter = getter;
      this.setter = setter;
    }

    /**
     * @param valid whether a value is in range
     * @param expected the range in words, for the error message
     * @return this
     */
    public Field<O, V> check(Predicate<V> valid, String expected) {
      return check((o, v) -> valid.test(v), o -> expected);
    }

    /**
     * A range that depends on other fields of the same options (e.g. at most {@code cqSize}).
     *
     * @param valid whether a value is in range, given the options it is in
     * @param expected the range in words, given the options
     * @return this
     */
    public Field<O, V> check(BiPredicate<O, V> valid, Function<O, String> expected) {
      this.valid = valid;
      this.expected = expected;
      return this;
    }

    /**
     * @return the JSON name
     */
    public String name() {
      return name;
    }

    /**
     * @return the default, null when the field has none
     */
    public V defaultValue() {
      return defaultValue;
    }

    /**
     * @return the default in its JSON form ({@code 5000} for a 5 s duration in milliseconds), null
     *     when the field has none
     */
    public Object defaultJson() {
      return defaultValue == null ? null : kind.write(defaultValue);
    }

    /**
     * @return the field's JSON type in words, e.g. {@code integer} or {@code list of string}
     */
    public String type() {
      return kind.type();
    }

    /**
     * @param options options with the values the range depends on (e.g. {@code cqSize})
     * @return the range in words, as error messages name it; empty when any value of the type is
     *     accepted
     */
    public String range(O options) {
      return expected.apply(options);
    }

    /**
     * Checks one value against this field's range, for code that takes the value from elsewhere;
     * only for a field whose range does not depend on other fields of its options.
     *
     * @param value the value
     * @param label what an option is called in messages
     * @return the value
     * @throws VteException INVALID_CONFIGURATION naming the field and the value
     */
    public V require(V value, String label) {
      check(null, value, label, name);
      return value;
    }

    private void reset(O target) {
      setter.accept(target, kind.copy(defaultValue));
    }

    private void copy(O source, O target) {
      setter.accept(target, kind.copy(getter.apply(source)));
    }

    private void read(O target, Object json, String label, String path) {
      setter.accept(target, kind.read(json, label, path));
    }

    private Object write(O source) {
      V value = getter.apply(source);
      return value == null ? null : kind.write(value);
    }

    private void validate(O source, String label, String path) {
      V value = getter.apply(source);
      check(source, value, label, path);
      if (value != null) {
        kind.validate(value, label, path);
      }
    }

    private void check(O source, V value, String label, String path) {
      if (!valid.test(source, value)) {
        throw invalid(
            label, path, value == null ? null : kind.write(value), expected.apply(source));
      }
    }
  }

  /**
   * How the values of one type are read from JSON (strictly), written to JSON, copied and
   * validated.
   *
   * @param <V> the value type
   */
  public interface Kind<V> {

    /**
     * @param json the JSON value (a String, Number, Boolean, JsonObject, JsonArray or null)
     * @param label what an option is called in messages
     * @param path the field's JSON path
     * @return the value
     * @throws VteException INVALID_CONFIGURATION naming the path and the value when its type is
     *     wrong
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
  }

  private static InvalidOptionException wrongType(
      String label, String path, Object json, String expected) {
    return new InvalidOptionException(
        label + " '" + path + "' has the wrong type: expected " + expected + ", got " + show(json),
        path,
        json,
        expected);
  }

  /** A JSON string; JSON null reads as null. */
  public static final Kind<String> STRING = plain(String.class, true, "a string", "string");

  /** A JSON boolean. */
  public static final Kind<Boolean> BOOLEAN =
      plain(Boolean.class, false, "true or false", "boolean");

  /**
   * @return values that are one JSON type as they are ({@code String}, {@code Boolean})
   */
  private static <V> Kind<V> plain(
      Class<V> type, boolean nullable, String expected, String typeName) {
    return new Kind<>() {
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
          throw wrongType(label, path, json, expected);
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
  public static final Kind<Integer> INT =
      new Kind<>() {
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
  public static final Kind<Integer> BYTES =
      new Kind<>() {
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
            throw wrongType(label, path, json, expected);
          }
          if (bytes != (int) bytes) {
            throw wrongType(label, path, json, expected + " below 2G");
          }
          return (int) bytes;
        }

        @Override
        public Object write(Integer value) {
          return value;
        }
      };

  /** A duration written as a JSON whole number of milliseconds; JSON null reads as null. */
  public static final Kind<Duration> MILLIS = wholeNumberOf(ChronoUnit.MILLIS, "milliseconds");

  /** A duration written as a JSON whole number of microseconds; JSON null reads as null. */
  public static final Kind<Duration> MICROS = wholeNumberOf(ChronoUnit.MICROS, "microseconds");

  /**
   * @return durations written as a JSON whole number of {@code unit}s ({@code unitName} in
   *     messages); JSON null reads as null
   */
  private static Kind<Duration> wholeNumberOf(ChronoUnit unit, String unitName) {
    return new Kind<>() {
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
  public static final Kind<List<String>> STRING_LIST = listOf(STRING);

  /**
   * @param element the kind of each element
   * @param <E> the element type
   * @return a JSON array of such elements; JSON null reads as null, elements are named {@code
   *     path[i]}
   */
  public static <E> Kind<List<E>> listOf(Kind<E> element) {
    return new Kind<>() {
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
          throw wrongType(label, path, json, "an array");
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
  public static <N> Kind<N> object(OptionFields<N> table, Supplier<N> factory) {
    return new Kind<>() {
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
          throw wrongType(label, path, json, "an object");
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
      throw wrongType(label, path, json, expected);
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
