/**
 * Metadata store implementations: the p2p store over the handshake service, the URI parser and the
 * descriptor cache and local-segment table shared with the etcd store (which lives in {@code
 * vte-metadata-etcd}).
 */
package io.vte.metadata.impl;
