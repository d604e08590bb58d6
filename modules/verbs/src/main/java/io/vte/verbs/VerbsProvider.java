package io.vte.verbs;

import java.util.List;
import java.util.Optional;

/**
 * A verbs implementation: soft verbs (pure Java over TCP) or ibverbs (JNI). Obtained from a {@link
 * VerbsProviderFactory}; closing it closes every context it opened.
 */
public interface VerbsProvider extends AutoCloseable {

  /**
   * @return the provider's short name, e.g. {@code soft} or {@code ibverbs}
   */
  String name();

  /**
   * @return true when this provider can open devices on this host
   */
  boolean isAvailable();

  /**
   * @return why the provider is unavailable (a readable message naming what is missing and what to
   *     use instead), or {@code null} when it is available
   */
  Throwable unavailabilityCause();

  /**
   * Lists the devices this provider can open.
   *
   * @return the devices, never null; empty when there are none
   * @throws VerbsException with {@link VerbsError#NO_DEVICE} or {@link VerbsError#NOT_SUPPORTED}
   *     when the provider is unavailable
   */
  List<DeviceInfo> devices();

  /**
   * Opens a device by name.
   *
   * @param deviceName a name from {@link #devices()}
   * @return the opened context
   * @throws VerbsException {@link VerbsError#NO_DEVICE} naming the unknown device
   */
  VerbsContext open(String deviceName);

  /**
   * The provider's fault injection, a capability a provider may offer (tests and tools take ports
   * down, drop frames, kill devices through it without knowing the provider).
   *
   * @return the injector of this provider's open devices, empty when it offers none (the default)
   */
  default Optional<VerbsFaultInjector> faultInjector() {
    return Optional.empty();
  }

  /**
   * What a tool prints about a device beyond its {@link DeviceInfo}, a capability a provider may
   * offer ({@code vte devices} shows it under the device's ports): for an RDMA device its limits,
   * each port's link layer and MTUs, its GID table and why a port cannot be used.
   *
   * @param deviceName a name from {@link #devices()}
   * @return the lines as printed (indented under the device); empty when the provider has none to
   *     add (the default)
   */
  default List<String> deviceDetails(String deviceName) {
    return List.of();
  }

  /** Closes every context opened through this provider and releases the provider's resources. */
  @Override
  void close();
}
