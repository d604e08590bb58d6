package io.vte.verbs.ibv;

import io.vte.verbs.Closeables;
import io.vte.verbs.DeviceInfo;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
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
    this.cause = probe();
  }

  private static VerbsException probe() {
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
      long ctx = IbvNative.openDevice(name);
      try {
        List<PortAttributes> ports = new ArrayList<>();
        for (int p = 1, n = IbvNative.portCount(ctx); p <= n; p++) {
          ports.add(IbvPorts.query(ctx, p, settings.gidIndex()));
        }
        out.add(new DeviceInfo(name, name(), ports));
      } finally {
        IbvNative.closeDevice(ctx);
      }
    }
    return out;
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
