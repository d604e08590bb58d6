package io.vte.api;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The soft-verbs devices an engine gets when its {@code devices} option is empty (and what {@code
 * vte} uses without {@code --devices}): one device per usable IPv4 address of the host's
 * non-loopback interfaces, named {@code soft0}, {@code soft1}, ... in interface order (by interface
 * index, then address). An interface is usable when it is up; IPv6-only interfaces and IPv4
 * link-local addresses (169.254/16) are skipped. Only when no other interface has a usable address
 * does the choice fall back to loopback (127.0.0.1).
 */
public final class DefaultSoftDevices {

  /** Name prefix of the chosen devices. */
  public static final String PREFIX = "soft";

  private DefaultSoftDevices() {}

  /**
   * What the choice needs to know about one network interface.
   *
   * @param name the interface name, e.g. {@code eth0}
   * @param index the kernel's interface index (the order of the choice)
   * @param up whether the interface is up
   * @param loopback whether it is a loopback interface
   * @param addresses its addresses, IPv4 and IPv6
   */
  public record HostInterface(
      String name, int index, boolean up, boolean loopback, List<InetAddress> addresses) {
    /** Copies the address list. */
    public HostInterface {
      addresses = List.copyOf(addresses);
    }
  }

  /**
   * One chosen device.
   *
   * @param name the device name, {@code soft<i>}
   * @param address the IPv4 address it binds to
   * @param interfaceName the interface that carries the address
   */
  public record Device(String name, String address, String interfaceName) {
    /**
     * @return the engine's device spec, {@code name@address}
     */
    public String spec() {
      return name + "@" + address;
    }
  }

  /**
   * The choice and why it was made.
   *
   * @param devices the chosen devices, never empty
   * @param reason one line saying what was chosen and why
   * @param skipped one line per interface or address that was not taken, with the reason
   */
  public record Choice(List<Device> devices, String reason, List<String> skipped) {
    /** Copies the lists. */
    public Choice {
      devices = List.copyOf(devices);
      skipped = List.copyOf(skipped);
    }

    /**
     * @return whether the choice fell back to loopback, so peers on other hosts cannot reach these
     *     devices
     */
    public boolean loopbackOnly() {
      return devices.stream().allMatch(d -> d.address().startsWith("127."));
    }

    /**
     * @return the engine's device specs, {@code soft0@address, ...}
     */
    public List<String> specs() {
      return devices.stream().map(Device::spec).toList();
    }
  }

  /**
   * @return the choice for this host's interfaces as the JDK lists them now
   */
  public static Choice forThisHost() {
    return choose(hostInterfaces());
  }

  /**
   * Chooses the devices from an interface list (see the class comment for the rules).
   *
   * @param interfaces the host's interfaces, in any order
   * @return the choice: at least one device
   */
  public static Choice choose(List<HostInterface> interfaces) {
    List<HostInterface> ordered = new ArrayList<>(interfaces);
    ordered.sort(Comparator.comparingInt(HostInterface::index).thenComparing(HostInterface::name));
    List<Device> devices = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    List<String> loopbackAddresses = new ArrayList<>();
    String loopbackName = "lo";
    for (HostInterface i : ordered) {
      List<Inet4Address> v4 = ipv4(i.addresses());
      if (i.loopback()) {
        loopbackName = i.name();
        v4.forEach(a -> loopbackAddresses.add(a.getHostAddress()));
        skipped.add(
            i.name() + ": loopback (used only when no other interface has a usable IPv4 address)");
      } else if (!i.up()) {
        skipped.add(i.name() + ": down");
      } else if (v4.isEmpty()) {
        skipped.add(
            i.name() + ": no IPv4 address" + (i.addresses().isEmpty() ? "" : " (IPv6 only)"));
      } else {
        for (Inet4Address a : v4) {
          if (a.isLinkLocalAddress()) {
            skipped.add(i.name() + " " + a.getHostAddress() + ": IPv4 link-local");
          } else {
            devices.add(new Device(PREFIX + devices.size(), a.getHostAddress(), i.name()));
          }
        }
      }
    }
    if (!devices.isEmpty()) {
      return new Choice(
          devices,
          devices.size()
              + " soft device(s), one per IPv4 address of the up non-loopback "
              + "interfaces "
              + devices.stream().map(Device::interfaceName).distinct().toList(),
          skipped);
    }
    String address =
        loopbackAddresses.isEmpty() ? SoftDeviceSpec.DEFAULT_HOST : loopbackAddresses.get(0);
    return new Choice(
        List.of(new Device(PREFIX + "0", address, loopbackName)),
        "loopback: no interface other than "
            + "loopback is up with a usable IPv4 address, so peers on other hosts cannot reach this node",
        skipped);
  }

  private static List<Inet4Address> ipv4(List<InetAddress> addresses) {
    List<Inet4Address> v4 = new ArrayList<>();
    for (InetAddress a : addresses) {
      if (a instanceof Inet4Address i && !i.isAnyLocalAddress() && !i.isMulticastAddress()) {
        v4.add(i);
      }
    }
    v4.sort(Comparator.comparing(a -> Integer.toUnsignedLong(toInt(a))));
    return v4;
  }

  private static int toInt(Inet4Address a) {
    byte[] b = a.getAddress();
    return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
  }

  /**
   * @return this host's interfaces as the JDK lists them; an interface whose state cannot be read
   *     counts as down, and a host whose interfaces cannot be listed at all as having none
   */
  public static List<HostInterface> hostInterfaces() {
    List<HostInterface> list = new ArrayList<>();
    List<NetworkInterface> all;
    try {
      all = NetworkInterface.networkInterfaces().toList();
    } catch (SocketException e) {
      return list;
    }
    for (NetworkInterface n : all) {
      boolean up;
      boolean loopback;
      try {
        up = n.isUp();
        loopback = n.isLoopback();
      } catch (SocketException e) {
        up = false;
        loopback = false;
      }
      list.add(
          new HostInterface(n.getName(), n.getIndex(), up, loopback, n.inetAddresses().toList()));
    }
    return list;
  }
}
