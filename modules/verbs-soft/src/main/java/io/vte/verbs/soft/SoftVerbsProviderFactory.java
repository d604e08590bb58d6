package io.vte.verbs.soft;

import io.vte.api.OptionFields;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviderFactory;

/** Creates the soft verbs provider ({@code soft}); its options are {@link SoftVerbsConfig}. */
public final class SoftVerbsProviderFactory implements VerbsProviderFactory<SoftVerbsConfig> {

  /** Creates the factory (ServiceLoader instantiates it). */
  public SoftVerbsProviderFactory() {}

  @Override
  public String name() {
    return SoftVerbsProvider.NAME;
  }

  @Override
  public OptionFields<SoftVerbsConfig> fields() {
    return SoftVerbsConfig.FIELDS;
  }

  @Override
  public SoftVerbsConfig defaults() {
    return new SoftVerbsConfig();
  }

  @Override
  public String label() {
    return SoftVerbsConfig.LABEL;
  }

  @Override
  public VerbsProvider open(SoftVerbsConfig options) {
    SoftVerbsConfig copy = new SoftVerbsConfig(options);
    // Resolves every device's host now: one that does not resolve fails the creation
    // (INVALID_ARGUMENT naming it), not the first open.
    copy.devices();
    return new SoftVerbsProvider(copy);
  }
}
