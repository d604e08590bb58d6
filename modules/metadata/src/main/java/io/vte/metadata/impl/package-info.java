/**
 * Metadata store implementations: the p2p store over the handshake service, and the parts every
 * store builds on (public for the stores of other jars, such as the etcd store in {@code
 * io.vte.metadata.etcd} of {@code vte-metadata-etcd}): the URI parser, the descriptor validator,
 * the descriptor cache and the local-segment table. Not an API for users.
 */
package io.vte.metadata.impl;
