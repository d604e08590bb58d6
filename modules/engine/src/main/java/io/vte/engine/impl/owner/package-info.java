/**
 * The owner layer: per local device a {@link io.vte.engine.impl.owner.LocalContext} with {@code
 * workersPerContext} owners, each pinned to its own event loop with its own CQ and the endpoints
 * whose peer NIC path hashes to it. Every endpoint lifecycle step runs on its owner; other threads
 * hop there through the owner's command queue.
 */
package io.vte.engine.impl.owner;
