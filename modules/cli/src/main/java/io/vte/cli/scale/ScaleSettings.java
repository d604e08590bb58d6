package io.vte.cli.scale;

import java.time.Duration;

/**
 * The knobs of a scale run, the same for every host count.
 *
 * @param nics soft devices per host
 * @param workers owners per device
 * @param requestBytes bytes per request
 * @param batch requests per batch in the all-to-all window
 * @param window how long the all-to-all traffic runs
 * @param idle the engines' idle connection time
 * @param metadataUri {@code p2p} or {@code etcd://host:port}
 */
record ScaleSettings(
    int nics,
    int workers,
    int requestBytes,
    int batch,
    Duration window,
    Duration idle,
    String metadataUri) {}
