/**
 * Submitting transfers: {@link io.vte.engine.impl.submit.TransferSubmitter} validates a batch
 * (nothing is sent on bad input), {@link io.vte.engine.impl.submit.Slicer} cuts its requests into
 * slices, and {@link io.vte.engine.impl.submit.TransferTracker} / {@link
 * io.vte.engine.impl.submit.BatchTracker} count them back, retry on other rails and settle requests
 * (deadline, cancel, close). Single submits and prepared transfers run on reused records.
 */
package io.vte.engine.impl.submit;
