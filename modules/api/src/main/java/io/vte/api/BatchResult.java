package io.vte.api;

import java.util.List;

/**
 * The outcome of a batch: one {@link RequestResult} per request, in submission order. Obtained from
 * {@link TransferBatch#result()}: {@code engine.submit(requests, new TransferOptions()).result()
 * .onSuccess(r -> r.requests().get(0).status())}.
 *
 * @param requests the per-request results
 */
public record BatchResult(List<RequestResult> requests) {

  /**
   * @return true when every request completed
   */
  public boolean allCompleted() {
    for (RequestResult r : requests) {
      if (r.status() != RequestStatus.COMPLETED) {
        return false;
      }
    }
    return true;
  }

  /**
   * @return bytes moved by the whole batch
   */
  public long bytes() {
    long sum = 0;
    for (RequestResult r : requests) {
      sum += r.bytes();
    }
    return sum;
  }
}
