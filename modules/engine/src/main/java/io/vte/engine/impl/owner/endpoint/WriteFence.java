package io.vte.engine.impl.owner.endpoint;

import io.vte.engine.impl.rail.Slice;
import java.util.ArrayList;
import java.util.List;

/**
 * The WRITEs an owner posted on an endpoint that then failed, held until the peer confirms that it
 * retired its end of the connection (a disconnect answered DISCONNECTED). Until then such a WRITE
 * may still execute at the peer, from its socket or its NIC, even though our QP saw an error; a
 * retry on another rail that completed first would then be overwritten by the stale copy. One fence
 * per endpoint, asked once; owner-confined.
 */
public final class WriteFence {

  /** A held slice and how it ended. */
  public record Held(Slice slice, int status, Throwable cause) {}

  private List<Held> held = new ArrayList<>();
  private boolean confirmed;
  private Throwable failure;

  /**
   * @return true while the peer has not answered: slices are held
   */
  public boolean pending() {
    return held != null;
  }

  /**
   * @return true when the peer confirmed that the endpoint's QPs execute nothing more
   */
  public boolean confirmed() {
    return confirmed;
  }

  /**
   * @return why the fence could not be confirmed, or null
   */
  public Throwable failure() {
    return failure;
  }

  /** Holds a slice until the answer; only while {@link #pending()}. */
  public void hold(Slice slice, int status, Throwable cause) {
    held.add(new Held(slice, status, cause));
  }

  /**
   * Ends the fence.
   *
   * @param failure null when the peer confirmed, else why it could not be confirmed
   * @return the slices held until now
   */
  public List<Held> settle(Throwable failure) {
    List<Held> out = held;
    held = null;
    this.confirmed = failure == null;
    this.failure = failure;
    return out;
  }
}
