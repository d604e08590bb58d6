/**
 * Device states pushed between engines: each engine streams its own device states to the engines
 * that watch it ({@link io.vte.engine.impl.push.DeviceStateFeed}), and watches every peer it has
 * rails to ({@link io.vte.engine.impl.push.PeerDeviceWatch}), handing what it hears to rail
 * selection ({@link io.vte.engine.impl.rail.PeerDeviceStates}).
 */
package io.vte.engine.impl.push;
