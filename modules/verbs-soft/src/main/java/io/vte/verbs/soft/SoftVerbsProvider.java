package io.vte.verbs.soft;

import io.vte.verbs.DeviceInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.SpinBudget;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsFaultInjector;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.soft.impl.NicSpin;
import io.vte.verbs.soft.impl.SoftDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Soft verbs: an RC HCA modelled in Java with TCP as its wire. Each configured device binds its
 * address when opened and runs its own NIC thread; devices in any process on any reachable host
 * interoperate. {@link #faults()} injects port, frame, device and QP failures.
 */
public final class SoftVerbsProvider implements VerbsProvider {

  /** The provider's name. */
  public static final String NAME = "soft";

  private final SoftVerbsConfig config;

  /**
   * The NIC threads of all providers in the JVM that may busy-poll at once, unless a provider is
   * given a budget of its own ({@code nicSpinThreads}): engines in one JVM share its cores.
   */
  private static final SpinBudget JVM_NIC_SPINNERS = SpinBudget.halfTheProcessors();

  /** The NIC threads of this provider's devices that may busy-poll at once. */
  private final SpinBudget nicSpinners;

  private final Map<String, SoftDevice> open = new LinkedHashMap<>();
  private final SoftFaultInjector faults = new SoftFaultInjector(this);
  private boolean closed;

  /**
   * @param config validated settings
   */
  public SoftVerbsProvider(SoftVerbsConfig config) {
    this.config = config;
    this.nicSpinners =
        config.nicSpinThreads() == 0 ? JVM_NIC_SPINNERS : new SpinBudget(config.nicSpinThreads());
  }

  /**
   * @return the settings in use
   */
  public SoftVerbsConfig config() {
    return config;
  }

  /**
   * @return the budget this provider's NIC threads poll under: the JVM's shared one unless the
   *     settings gave the provider its own
   */
  SpinBudget nicSpinBudget() {
    return nicSpinners;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public Throwable unavailabilityCause() {
    return null;
  }

  @Override
  public synchronized List<DeviceInfo> devices() {
    List<DeviceInfo> list = new ArrayList<>();
    for (SoftDeviceConfig d : config.devices()) {
      SoftDevice dev = open.get(d.name());
      PortAttributes port =
          dev != null
              ? dev.queryPort(SoftDevice.PORT)
              : new PortAttributes(
                  SoftDevice.PORT,
                  PortState.ACTIVE,
                  config.mtu(),
                  d.port(),
                  Gid.fromInetAddress(d.host()),
                  0,
                  LinkLayer.ETHERNET);
      list.add(new DeviceInfo(d.name(), NAME, List.of(port)));
    }
    return list;
  }

  @Override
  public synchronized VerbsContext open(String deviceName) {
    if (closed) {
      throw new VerbsException(VerbsError.CLOSED, "soft verbs provider is closed");
    }
    SoftDeviceConfig d =
        config.devices().stream()
            .filter(c -> c.name().equals(deviceName))
            .findFirst()
            .orElseThrow(
                () ->
                    new VerbsException(
                        VerbsError.NO_DEVICE,
                        "no soft device '"
                            + deviceName
                            + "'; configured: "
                            + config.devices().stream().map(SoftDeviceConfig::name).toList()));
    if (open.containsKey(deviceName)) {
      throw new VerbsException(
          VerbsError.BUSY, "soft device " + deviceName + " is already open in this provider");
    }
    SoftDevice dev =
        SoftDevice.open(
            d.name(),
            d.host(),
            d.port(),
            config.mtu(),
            config.maxMessageBytes(),
            config.socketBufferBytes(),
            new NicSpin(config.nicSpinMicros() * 1000L, nicSpinners),
            () -> forget(deviceName));
    dev.setIdleConnectionTimeout(config.idleConnectionMs() * 1_000_000L);
    open.put(deviceName, dev);
    return dev;
  }

  private synchronized void forget(String deviceName) {
    open.remove(deviceName);
  }

  /**
   * @return the fault injector of this provider's open devices
   */
  public SoftFaultInjector faults() {
    return faults;
  }

  @Override
  public Optional<VerbsFaultInjector> faultInjector() {
    return Optional.of(faults);
  }

  synchronized SoftDevice openDevice(String deviceName) {
    SoftDevice dev = open.get(deviceName);
    if (dev == null) {
      throw new VerbsException(
          VerbsError.NO_DEVICE,
          "soft device '" + deviceName + "' is not open; open: " + open.keySet());
    }
    return dev;
  }

  @Override
  public void close() {
    List<SoftDevice> devs;
    synchronized (this) {
      closed = true;
      devs = new ArrayList<>(open.values());
    }
    for (SoftDevice d : devs) {
      d.close();
    }
  }
}
