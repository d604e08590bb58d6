package io.vte.api;

import io.vertx.core.json.JsonObject;
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

/**
 * The one table of the fields of an options class: for each field its JSON name, its {@link
 * OptionKind}, its default, its range and its getter and setter. The class's JSON ({@link #read},
 * {@link #toJson}), its defaults ({@link #applyDefaults}) and its validation ({@link #validate})
 * all come from this table, so a field is declared once.
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
      String name,
      OptionKind<V> kind,
      V defaultValue,
      Function<O, V> getter,
      BiConsumer<O, V> setter) {
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

  /**
   * One field of an options class.
   *
   * @param <O> the options class
   * @param <V> the value type
   */
  public static final class Field<O, V> {
    private final String name;
    private final OptionKind<V> kind;
    private final V defaultValue;
    private final Function<O, V> getter;
    private final BiConsumer<O, V> setter;
    private BiPredicate<O, V> valid = (o, v) -> true;
    private Predicate<V> plainValid = v -> true;
    private Function<O, String> expected = o -> "";

    private Field(
        String name,
        OptionKind<V> kind,
        V defaultValue,
        Function<O, V> getter,
        BiConsumer<O, V> setter) {
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
      check((o, v) -> valid.test(v), o -> expected);
      this.plainValid = valid;
      return this;
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
      this.plainValid = null;
      return this;
    }

    /**
     * The same field (kind, default and range) in another options class, under another name: for a
     * setting that one options class passes on to another (an engine option a provider takes), so
     * that its default and range have one home.
     *
     * @param otherName the JSON name in the other class
     * @param otherGetter reads the field there
     * @param otherSetter writes the field there
     * @param <P> the other options class
     * @return the field
     * @throws IllegalStateException when this field's range depends on other fields of its class
     */
    public <P> Field<P, V> as(
        String otherName, Function<P, V> otherGetter, BiConsumer<P, V> otherSetter) {
      if (plainValid == null) {
        throw new IllegalStateException("the range of '" + name + "' depends on its class");
      }
      String range = expected.apply(null);
      return new Field<>(otherName, kind, defaultValue, otherGetter, otherSetter)
          .check(plainValid, range);
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
        throw InvalidOptionException.outOfRange(
            label, path, value == null ? null : kind.write(value), expected.apply(source));
      }
    }
  }
}
