package io.vte.verbs.ibv;

import io.vte.api.OptionFields;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviderFactory;

/** Creates the {@code ibverbs} provider; its options are {@link IbvSettings}. */
public final class IbvVerbsProviderFactory implements VerbsProviderFactory<IbvSettings> {

  /** The provider name. */
  public static final String NAME = "ibverbs";

  /** Public no-argument constructor for {@link java.util.ServiceLoader}. */
  public IbvVerbsProviderFactory() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public OptionFields<IbvSettings> fields() {
    return IbvSettings.FIELDS;
  }

  @Override
  public IbvSettings defaults() {
    return new IbvSettings();
  }

  @Override
  public String label() {
    return IbvSettings.LABEL;
  }

  @Override
  public VerbsProvider open(IbvSettings options) {
    return new IbvProvider(new IbvSettings(options));
  }
}
