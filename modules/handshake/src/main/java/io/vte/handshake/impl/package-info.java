/**
 * Internals of the handshake service: per-call state on the server, status mapping, the auth field
 * of requests, the replay cache, and option-file helpers. Not a public API.
 */
package io.vte.handshake.impl;
