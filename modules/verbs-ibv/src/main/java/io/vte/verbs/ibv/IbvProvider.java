package io.vte.verbs.ibv;

import io.vte.verbs.Closeables;
import io.vte.verbs.DeviceInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.ibv.device.IbvDeviceDetails;
import io.vte.verbs.ibv.device.IbvDeviceReport;
import io.vte.verbs.ibv.device.IbvGidEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code ibverbs} provider: real RDMA devices through the JNI shim over libibverbs.
 *
 * <p>Availability is decided once, at creation: the {@value #DISABLE_PROPERTY} kill switch, then
 * loading the shim (and libibverbs.so.1 with it), then listing devices. When any step fails, {@link
 * #unavailabilityCause()} says why in plain words and {@link #devices()} and {@link #open(String)}
 * throw with the same message.
 */
public final class IbvProvider implements VerbsProvider {

  /** System property that turns the provider off: {@code -Dvte.ibverbs.disable=true}. */
  public static final String DISABLE_PROPERTY = "vte.ibverbs.disable";

  private final IbvSettings settings;
  private final VerbsException cause;
  private final Set<IbvContext> contexts = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param settings provider settings
   */
  public IbvProvider(IbvSettings settings) {
    this.settings = settings;
    this.cause = probe(settings);
  }

  private static VerbsException probe(IbvSettings settings) {
    if (Boolean.getBoolean(DISABLE_PROPERTY)) {
      return new VerbsException(
          VerbsError.NOT_SUPPORTED,
          "the ibverbs provider is disabled by -D"
              + DISABLE_PROPERTY
              + "=true; use the 'soft' verbs provider");
    }
    VerbsException loadFailure = IbvLibrary.failure();
    if (loadFailure != null) {
      return loadFailure;
    }
    if (settings.forkInit()) {
      IbvLibrary.forkInit();
    }
    try {
      if (IbvNative.deviceNames().length == 0) {
        return new VerbsException(
            VerbsError.NO_DEVICE,
            "no RDMA devices found (ibv_get_device_list returned"
                + " an empty list: no RDMA NIC, or its driver is not loaded); use the 'soft' verbs provider");
      }
      return null;
    } catch (VerbsException e) {
      if (e.getMessage().contains("errno " + IbvErrors.ENOSYS + ")")) {
        return new VerbsException(
            VerbsError.NOT_SUPPORTED,
            "the kernel has no RDMA devices"
                + " (ibv_get_device_list: ENOSYS, errno 38: no RDMA subsystem or NIC on this host);"
                + " use the 'soft' verbs provider, which runs everywhere",
            e);
      }
      return new VerbsException(
          VerbsError.NO_DEVICE,
          "RDMA devices cannot be listed (" + e.getMessage() + "); use the 'soft' verbs provider",
          e);
    }
  }

  @Override
  public String name() {
    return IbvVerbsProviderFactory.NAME;
  }

  @Override
  public boolean isAvailable() {
    return cause == null;
  }

  @Override
  public Throwable unavailabilityCause() {
    return cause;
  }

  /**
   * @return the settings this provider was created with
   */
  public IbvSettings settings() {
    return settings;
  }

  @Override
  public List<DeviceInfo> devices() {
    checkUsable();
    List<DeviceInfo> out = new ArrayList<>();
    for (String name : IbvNative.deviceNames()) {
      out.add(describe(name).info());
    }
    return out;
  }

  /**
   * Reads a device without opening a context for it (no channel, no thread): its limits, and each
   * port with its whole GID table and the GID VTE would choose.
   *
   * @param name a device name from {@link #devices()}
   * @return the report
   */
  public IbvDeviceReport describe(String name) {
    checkUsable();
    IbvGidSelector selector = new IbvGidSelector(settings);
    long ctx = IbvNative.openDevice(name);
    try {
      IbvDeviceCaps caps = IbvDeviceCaps.query(ctx);
      List<IbvPortInfo> ports = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      List<PortAttributes> attributes = new ArrayList<>();
      for (int p = 1; p <= caps.ports(); p++) {
        IbvPortInfo info = IbvPortInfo.query(ctx, p);
        ports.add(info);
        Gid gid = Gid.ZERO;
        int index = -1;
        try {
          IbvGidEntry chosen = selector.select(name, info);
          gid = chosen.gid();
          index = chosen.index();
        } catch (VerbsException e) {
          problems.add(e.getMessage());
        }
        attributes.add(
            new PortAttributes(
                p, info.state(), info.activeMtu(), info.lid(), gid, index, info.linkLayer()));
      }
      return new IbvDeviceReport(
          new DeviceInfo(name, name(), attributes),
          caps,
          ports,
          problems,
          IbvNative.hasQueryGidEx());
    } finally {
      IbvNative.closeDevice(ctx);
    }
  }

  /** The lines {@code vte devices} prints under an RDMA device: see {@link IbvDeviceDetails}. */
  @Override
  public List<String> deviceDetails(String deviceName) {
    return IbvDeviceDetails.lines(describe(deviceName));
  }

  @Override
  public VerbsContext open(String deviceName) {
    checkUsable();
    if (!Arrays.asList(IbvNative.deviceNames()).contains(deviceName)) {
      throw new VerbsException(
          VerbsError.NO_DEVICE,
          "no RDMA device named '"
              + deviceName
              + "'; devices: "
              + Arrays.toString(IbvNative.deviceNames()));
    }
    IbvContext ctx = new IbvContext(this, deviceName, settings);
    contexts.add(ctx);
    return ctx;
  }

  /**
   * @param ctx a closed context to forget
   */
  void forget(IbvContext ctx) {
    contexts.remove(ctx);
  }

  private void checkUsable() {
    if (cause != null) {
      throw new VerbsException(
          cause.error(), "the ibverbs provider is unavailable: " + reason(cause), cause);
    }
    if (closed.get()) {
      throw new VerbsException(VerbsError.CLOSED, "the ibverbs provider is closed");
    }
  }

  /**
   * @return the message without the {@code ERROR: } prefix {@link VerbsException} puts in front
   */
  private static String reason(VerbsException e) {
    String prefix = e.error() + ": ";
    String msg = e.getMessage();
    return msg.startsWith(prefix) ? msg.substring(prefix.length()) : msg;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      RuntimeException failure = Closeables.closeAll(contexts, null);
      if (failure != null) {
        throw failure;
      }
    }
  }
}
