package io.vte.verbs;

import java.util.ArrayList;

/** Closes every child of a verbs object even when one fails, as both providers need on close. */
public final class Closeables {

  private Closeables() {}

  /**
   * Closes each child, in order, carrying on past failures.
   *
   * @param children what to close (copied first: closing a child may remove it from its parent)
   * @param first an earlier failure to keep, or null
   * @return the first failure (the earlier one, or one raised here, later ones suppressed in it),
   *     or null
   */
  public static RuntimeException closeAll(
      Iterable<? extends AutoCloseable> children, RuntimeException first) {
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
        RuntimeException wrapped =
            new VerbsException(VerbsError.IO_ERROR, "closing " + c + " failed", e);
        if (first == null) {
          first = wrapped;
        } else {
          first.addSuppressed(wrapped);
        }
      }
    }
    return first;
  }
}
