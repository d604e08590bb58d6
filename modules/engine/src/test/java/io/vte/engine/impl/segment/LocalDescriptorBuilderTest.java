package io.vte.engine.impl.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LocalDescriptorBuilderTest {

  @Test
  void aRestartedNodesDescriptorsAreNewerThanItsOldOnes() {
    MemoryRegistry memory = new MemoryRegistry(new FakeDeviceMemory(1), () -> {});
    LocalDescriptorBuilder before =
        new LocalDescriptorBuilder(
            "127.0.0.1:5000",
            "soft",
            List.of("d0"),
            i -> {
              throw new IllegalStateException("no port");
            },
            memory);
    for (int i = 0; i < 100; i++) {
      before.changed();
    }
    long old = before.build().getVersion();
    long startedAt = System.currentTimeMillis();
    Await.until(
        "the wall clock moved on",
        Duration.ofSeconds(5),
        () -> System.currentTimeMillis() > startedAt);
    LocalDescriptorBuilder restarted =
        new LocalDescriptorBuilder(
            "127.0.0.1:5000",
            "soft",
            List.of("d0"),
            i -> {
              throw new IllegalStateException("no port");
            },
            memory);
    assertTrue(restarted.build().getVersion() > old, restarted.build().getVersion() + " > " + old);
  }

  @Test
  void describesDevicesAndBuffersWithAlignedKeysAndBumpsVersions() throws Exception {
    FakeDeviceMemory devices = new FakeDeviceMemory(2);
    LocalDescriptorBuilder[] holder = new LocalDescriptorBuilder[1];
    MemoryRegistry memory = new MemoryRegistry(devices, () -> holder[0].changed());
    AtomicBoolean dev1Up = new AtomicBoolean(true);
    Gid gid = Gid.fromInetAddress(InetAddress.getByName("127.0.0.2"));
    LinkLayer link = LinkLayer.values()[0];
    holder[0] =
        new LocalDescriptorBuilder(
            "127.0.0.1:5000",
            "soft",
            List.of("d0", "d1"),
            i -> {
              if (i == 1 && !dev1Up.get()) {
                throw new IllegalStateException("device gone");
              }
              return new PortAttributes(1, PortState.ACTIVE, 4096, 7000 + i, gid, 0, link);
            },
            memory);
    SegmentDescriptor v1 = holder[0].build();
    assertEquals("127.0.0.1:5000", v1.getName());
    assertEquals(2, v1.getDevicesCount());
    assertEquals(7001, v1.getDevices(1).getLid());
    assertTrue(v1.getDevices(0).getActive());
    assertEquals(0, v1.getBuffersCount());

    LocalBuffer b = memory.register(0x9000, 512, "gpu:1");
    SegmentDescriptor v2 = holder[0].build();
    assertTrue(v2.getVersion() > v1.getVersion());
    assertEquals(1, v2.getBuffersCount());
    assertEquals("gpu:1", v2.getBuffers(0).getLocation());
    assertEquals(List.of(b.rkey(0), b.rkey(1)), v2.getBuffers(0).getRkeysList());
    assertEquals(gid, Gid.fromBytes(v2.getDevices(0).getGid().toByteArray()));

    dev1Up.set(false);
    assertFalse(
        holder[0].build().getDevices(1).getActive(), "an unqueryable device is described inactive");
  }
}
