package io.vte.verbs;

import io.vertx.core.json.JsonObject;
import io.vte.api.OptionFields;
import io.vte.api.VteException;

/**
 * Creates a {@link VerbsProvider} from its typed options. Implementations are found with {@link
 * java.util.ServiceLoader}; see {@link VerbsProviders}.
 *
 * <p>Each provider declares its own options class {@code O} and that class's field table ({@link
 * #fields()}, the mechanism of the engine's options): the table gives the JSON names, defaults and
 * ranges, reads a configuration file's provider section strictly ({@link #create(JsonObject)}:
 * unknown keys and values of the wrong type are refused by name) and validates the options once, in
 * {@link #create(Object)}, before {@link #open} sees them.
 *
 * @param <O> the provider's options class
 */
public interface VerbsProviderFactory<O> {

  /**
   * @return the name the provider is selected by, e.g. {@code soft} or {@code ibverbs}
   */
  String name();

  /**
   * @return the table of the provider's options: JSON names, kinds, defaults, ranges
   */
  OptionFields<O> fields();

  /**
   * @return new options with every field at its default
   */
  O defaults();

  /**
   * Opens a provider with options {@link #create(Object)} has validated.
   *
   * @param options the options, validated
   * @return a new provider
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} when the options are valid but the
   *     host refuses them (e.g. a host name that does not resolve)
   */
  VerbsProvider open(O options);

  /**
   * @return what one of the provider's options is called in messages, e.g. {@code soft verbs
   *     option}
   */
  default String label() {
    return name() + " verbs option";
  }

  /**
   * Validates the options against {@link #fields()} and opens a provider with them.
   *
   * @param options the options (not changed)
   * @return a new provider
   * @throws VteException INVALID_CONFIGURATION naming the first bad option and its value
   */
  default VerbsProvider create(O options) {
    fields().validate(options, label(), "");
    return open(options);
  }

  /**
   * Reads a provider section (of a configuration file, or made by an engine) strictly through
   * {@link #fields()}, absent keys keeping their defaults, and creates the provider.
   *
   * @param json the provider's options as JSON
   * @return a new provider
   * @throws VteException INVALID_CONFIGURATION naming an unknown key, a value of the wrong type or
   *     out of range
   */
  default VerbsProvider create(JsonObject json) {
    O options = defaults();
    fields().read(json, options, label(), "");
    return create(options);
  }
}
