/**
 * Small application messages between engines: {@link io.vte.engine.impl.notify.NotificationSender}
 * sends them one at a time per peer, {@link io.vte.engine.impl.notify.NotificationDispatcher} hands
 * incoming ones to the application in order.
 */
package io.vte.engine.impl.notify;
