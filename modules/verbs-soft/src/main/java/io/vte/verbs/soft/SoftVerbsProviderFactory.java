package io.vte.verbs.soft;

import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviderFactory;
import java.util.Map;

/**
 * Creates the soft verbs provider ({@code soft}); configuration keys are described by {@link
 * SoftVerbsConfig}.
 */
public final class SoftVerbsProviderFactory implements VerbsProviderFactory {

  /** Creates the factory (ServiceLoader instantiates it). */
  public SoftVerbsProviderFactory() {}

  @Override
  public String name() {
    return SoftVerbsProvider.NAME;
  }

  @Override
  public VerbsProvider create(Map<String, Object> config) {
    return new SoftVerbsProvider(SoftVerbsConfig.from(config));
  }
}
