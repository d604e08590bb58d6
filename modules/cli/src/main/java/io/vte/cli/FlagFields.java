package io.vte.cli;

import io.vte.api.ByteSizes;
import io.vte.api.InvalidOptionException;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * A command's own flags on an {@link OptionFields} table, the one configuration model of every
 * part: each flag is a field of the command, named {@code --} and the field's name in kebab case
 * ({@code httpPort} is {@code --http-port}), its default and range the field's. Picocli takes the
 * defaults from here (the command's {@code defaultValueProvider} is {@link Defaults}), and the
 * command checks the parsed values with {@link #validate}, each error named by its flag.
 *
 * @param <C> the command
 */
final class FlagFields<C> {

  /**
   * A byte count that may exceed 32 bits: a JSON whole number, or a size such as {@code "64M"}
   * ({@link ByteSizes}).
   */
  static final OptionKind<Long> BYTE_COUNT =
      new OptionKind<>() {
        @Override
        public Long read(Object json, String label, String path) {
          try {
            if (json instanceof String text) {
              return ByteSizes.parse(text);
            }
            if (json instanceof Number n && n.doubleValue() == n.longValue()) {
              return n.longValue();
            }
          } catch (IllegalArgumentException e) {
            // refused below, naming the field
          }
          String expected = "a whole number of bytes or a size like \"64M\"";
          throw new InvalidOptionException(
              label + " '" + path + "' has the wrong type: expected " + expected + ", got " + json,
              path,
              json,
              expected);
        }

        @Override
        public Object write(Long value) {
          return value;
        }

        @Override
        public String type() {
          return "bytes";
        }
      };

  private static final String LABEL = "flag";

  /** Each command's flags, by its class. */
  private static final Map<Class<?>, FlagFields<?>> BY_COMMAND = new ConcurrentHashMap<>();

  private final OptionFields<C> fields;

  private FlagFields(OptionFields<C> fields) {
    this.fields = fields;
  }

  /**
   * Declares a command's flags; {@link Defaults} gives picocli their defaults from now on.
   *
   * @param command the command's class
   * @param fields its flags
   * @param <C> the command
   * @return the flags
   */
  static <C> FlagFields<C> of(Class<C> command, OptionFields<C> fields) {
    FlagFields<C> flags = new FlagFields<>(fields);
    BY_COMMAND.put(command, flags);
    return flags;
  }

  /** Picocli's source of the defaults of a command's flags: its {@link FlagFields}. */
  static final class Defaults implements IDefaultValueProvider {
    @Override
    public String defaultValue(ArgSpec arg) {
      FlagFields<?> flags = BY_COMMAND.get(arg.command().userObject().getClass());
      return flags == null ? null : flags.defaultValue(arg);
    }
  }

  /**
   * @param fieldName a field's name, e.g. {@code httpPort}
   * @return its flag, e.g. {@code --http-port}
   */
  static String flag(String fieldName) {
    return "--" + fieldName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /**
   * @param arg an option or parameter of the command
   * @return its default as the command line writes it ({@code 1M} for a byte count of 1 MiB), or
   *     null when it is not one of these flags or has no default
   */
  String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    for (Field<C, ?> f : fields.fields()) {
      if (flag(f.name()).equals(option.longestName())) {
        Object value = f.defaultJson();
        if (value == null) {
          return null;
        }
        return "bytes".equals(f.type()) ? size(((Number) value).longValue()) : value.toString();
      }
    }
    return null;
  }

  /**
   * Checks that every field is a flag of the command (a declaration picocli does not see would
   * never be set).
   *
   * @param spec the command
   * @throws IllegalStateException naming the first field without its flag
   */
  void requireFlagsOf(CommandSpec spec) {
    for (Field<C, ?> f : fields.fields()) {
      if (spec.findOption(flag(f.name())) == null) {
        throw new IllegalStateException(spec.name() + " has no flag " + flag(f.name()));
      }
    }
  }

  /**
   * Checks every flag's value against its field's range.
   *
   * @param command the parsed command
   * @param line its command line
   * @throws ParameterException naming the first bad flag, its value and the range
   */
  void validate(C command, CommandLine line) {
    try {
      fields.validate(command, LABEL, "");
    } catch (InvalidOptionException e) {
      Object value = e.value() instanceof String s ? "'" + s + "'" : e.value();
      throw new ParameterException(
          line, flag(e.path()) + " " + value + " is invalid: expected " + e.expected());
    }
  }

  private static String size(long bytes) {
    for (String unit : new String[] {"G", "M", "K"}) {
      long scale = ByteSizes.parse("1" + unit);
      if (bytes != 0 && bytes % scale == 0) {
        return bytes / scale + unit;
      }
    }
    return Long.toString(bytes);
  }
}
