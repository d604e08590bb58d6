/**
 * An owner's endpoints: {@link io.vte.engine.impl.owner.endpoint.Endpoint} (its state behind
 * transition methods), its key, lifecycle and store, and the fence of its failed WRITEs. Confined
 * to the owner's event loop.
 */
package io.vte.engine.impl.owner.endpoint;
