package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.PortState;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connection that the CQ's consumer closed after the NIC's selector picked its key is passed
 * over: its ready set is read only under the handler's lock and only while it is open. Before, the
 * NIC read the ready set of the cancelled key first, and the CancelledKeyException killed the NIC
 * thread, so the device's outstanding work never completed (seen once in CI, when a peer's port
 * went down and the consumer read the closed stream while the NIC thread held the key).
 */
class ClosedConnectionSelectedTest {

  /** A handler that does nothing: the connection only has to exist, be closed and be selected. */
  private static final class Idle implements Connection.Handler {
    @Override
    public boolean onHeader(Connection c, FrameHeader h) {
      return false;
    }

    @Override
    public void onPayloadDone(Connection c, FrameHeader h, boolean intact) {}

    @Override
    public boolean canReceive() {
      return true;
    }

    @Override
    public void fillTx(Connection c) {}

    @Override
    public void onClosed(Connection c) {}
  }

  @Test
  void theNicPassesOverAConnectionClosedAfterItsKeyWasSelected() throws Exception {
    SoftVerbsProvider provider =
        (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig());
    try (ServerSocket peer = new ServerSocket()) {
      peer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      SoftDevice device = (SoftDevice) provider.open("soft0");
      Nic nic = device.nic();
      CompletableFuture<Void> done = new CompletableFuture<>();
      // on the NIC thread, as the selector would dispatch a key picked before the consumer closed
      nic.execute(
          () -> {
            try {
              Connection c =
                  Connection.connect(
                      nic,
                      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                      (InetSocketAddress) peer.getLocalSocketAddress(),
                      new Idle());
              c.close();
              c.onSelected();
              done.complete(null);
            } catch (Throwable e) {
              done.completeExceptionally(e);
            }
          });
      done.get(20, TimeUnit.SECONDS);
      assertEquals(0, nic.openConnections());
      assertEquals(PortState.ACTIVE, device.queryPort(1).state(), "the device lives");
      assertTrue(!device.isDead(), "the NIC thread did not fail");
    } finally {
      provider.close();
    }
  }
}
