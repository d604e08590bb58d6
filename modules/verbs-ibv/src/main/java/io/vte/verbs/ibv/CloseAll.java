package io.vte.verbs.ibv;

import java.util.ArrayList;

/** Closes every child of an object even when one fails, then rethrows the first failure. */
final class CloseAll {

  private CloseAll() {}

  /**
   * @param children what to close, in order (copied first: closing removes children from their parent)
   * @param first an earlier failure to keep, or null
   * @return the first failure (the earlier one, or one raised here), or null
   */
  static RuntimeException close(Iterable<? extends AutoCloseable> children, RuntimeException first) {
    ArrayList<AutoCloseable> copy = new ArrayList<>();
    children.forEach(copy::add);
    for (AutoCloseable c : copy) {
      try {
        c.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      } catch (Exception e) {
        throw new IllegalStateException("verbs objects close without checked exceptions", e);
      }
    }
    return first;
  }
}
