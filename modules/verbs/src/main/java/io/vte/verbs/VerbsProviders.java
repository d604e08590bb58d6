package io.vte.verbs;

import io.vertx.core.json.JsonObject;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** Finds {@link VerbsProviderFactory} implementations on the class path by name. */
public final class VerbsProviders {

  /**
   * The artifacts of the providers VTE ships, by provider name, for the error when one is missing.
   */
  private static final Map<String, String> ARTIFACTS =
      Map.of("soft", "io.vte:vte-verbs-soft", "ibverbs", "io.vte:vte-verbs-ibv");

  private VerbsProviders() {}

  /**
   * @return the names of every provider factory on the class path
   */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (VerbsProviderFactory<?> f : ServiceLoader.load(VerbsProviderFactory.class)) {
      names.add(f.name());
    }
    return names;
  }

  /**
   * Creates the named provider from its options in JSON (a configuration file's provider section),
   * read strictly by that provider's field table.
   *
   * @param name provider name, e.g. {@code soft}
   * @param options the provider's options; absent keys keep their defaults
   * @return the provider
   * @throws VerbsException {@link VerbsError#NOT_SUPPORTED} when no factory has that name (naming
   *     the artifact that provides it, for the providers VTE ships)
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad value
   */
  public static VerbsProvider create(String name, JsonObject options) {
    return factory(name).create(options);
  }

  /**
   * @param name provider name, e.g. {@code soft}
   * @return the factory of that name on the class path
   * @throws VerbsException {@link VerbsError#NOT_SUPPORTED} when no factory has that name (naming
   *     the artifact that provides it, for the providers VTE ships)
   */
  public static VerbsProviderFactory<?> factory(String name) {
    for (VerbsProviderFactory<?> f : ServiceLoader.load(VerbsProviderFactory.class)) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    String artifact = ARTIFACTS.get(name);
    throw new VerbsException(
        VerbsError.NOT_SUPPORTED,
        artifact != null
            ? "verbs provider '"
                + name
                + "' is not on the class path (available: "
                + names()
                + "); add the dependency "
                + artifact
            : "unknown verbs provider '" + name + "'; available: " + names());
  }
}
