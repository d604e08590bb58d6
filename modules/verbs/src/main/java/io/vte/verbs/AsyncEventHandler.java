package io.vte.verbs;

/** Receives a device's async events. Called on a provider thread; must not block. */
@FunctionalInterface
public interface AsyncEventHandler {

  /**
   * @param event the event, delivered exactly once
   */
  void onEvent(AsyncEvent event);
}
