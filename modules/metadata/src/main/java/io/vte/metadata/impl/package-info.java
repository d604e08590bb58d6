/**
 * Metadata store implementations: the p2p store over the handshake service and the etcd store over
 * jetcd (lease, watch-updated cache, health probe), with the URI parser, descriptor codec and client
 * mapping they share.
 */
package io.vte.metadata.impl;
