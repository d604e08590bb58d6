package io.vte.verbs;

/** Called once per {@link CompletionQueue#requestNotify()} when a completion arrives. */
@FunctionalInterface
public interface CompletionNotificationHandler {

  /**
   * @param cq the CQ that has new completions; poll it from its consumer's thread, not here
   */
  void onCompletion(CompletionQueue cq);
}
