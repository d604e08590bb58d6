package io.vte.verbs.ibv;

import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviderFactory;
import java.util.Map;

/**
 * Creates the {@code ibverbs} provider. Settings (all optional): {@code gidIndex} (-1 = automatic),
 * {@code maxRdAtomic}, {@code minRnrTimer}, {@code eventPollMillis}; see {@link IbvSettings}.
 */
public final class IbvVerbsProviderFactory implements VerbsProviderFactory {

  /** The provider name. */
  public static final String NAME = "ibverbs";

  /** Public no-argument constructor for {@link java.util.ServiceLoader}. */
  public IbvVerbsProviderFactory() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public VerbsProvider create(Map<String, Object> config) {
    return new IbvProvider(IbvSettings.fromConfig(config));
  }
}
