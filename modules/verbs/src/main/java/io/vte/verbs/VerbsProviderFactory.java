package io.vte.verbs;

import java.util.Map;

/**
 * Creates a {@link VerbsProvider} from a configuration map. Implementations are found with {@link
 * java.util.ServiceLoader}; see {@link VerbsProviders}.
 */
public interface VerbsProviderFactory {

  /**
   * @return the name the provider is selected by, e.g. {@code soft} or {@code ibverbs}
   */
  String name();

  /**
   * Creates a provider.
   *
   * @param config provider-specific settings (documented by each provider); never null
   * @return a new provider
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} naming a bad setting
   */
  VerbsProvider create(Map<String, Object> config);
}
