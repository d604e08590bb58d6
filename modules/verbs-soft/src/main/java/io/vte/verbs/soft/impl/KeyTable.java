package io.vte.verbs.soft.impl;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Maps 32-bit keys (MR lkeys/rkeys, QP numbers) to objects without allocation on lookup. A key is
 * {@code slot << 8 | tag}, where the random tag makes a stale or guessed key miss after a slot is
 * reused. Writers synchronize; readers see a volatile snapshot of the slot array.
 *
 * @param <T> the value type
 */
final class KeyTable<T> {

  private final int maxSlots;
  private volatile Object[] slots = new Object[16];
  private volatile int[] keys = new int[16];
  private int next;
  private final java.util.ArrayDeque<Integer> free = new java.util.ArrayDeque<>();

  /**
   * @param maxSlots upper bound on live entries (keys stay below {@code maxSlots << 8})
   */
  KeyTable(int maxSlots) {
    this.maxSlots = maxSlots;
  }

  /**
   * @param factory makes the value from its key
   * @return the new value, or null when the table is full
   */
  synchronized T add(java.util.function.IntFunction<T> factory) {
    int slot;
    if (!free.isEmpty()) {
      slot = free.poll();
    } else if (next < maxSlots) {
      slot = next++;
    } else {
      return null;
    }
    if (slot >= slots.length) {
      int n = Math.min(maxSlots, slots.length * 2);
      Object[] s = java.util.Arrays.copyOf(slots, n);
      int[] k = java.util.Arrays.copyOf(keys, n);
      keys = k;
      slots = s;
    }
    int key = (slot << 8) | ThreadLocalRandom.current().nextInt(1, 256);
    T value = factory.apply(key);
    keys[slot] = key;
    Object[] s = slots;
    s[slot] = value;
    slots = s; // volatile write publishes the entry
    return value;
  }

  /**
   * @param key a key
   * @return the value, or null for an unknown, removed or malformed key
   */
  @SuppressWarnings("unchecked")
  T get(int key) {
    int slot = key >>> 8;
    Object[] s = slots;
    int[] k = keys;
    if (slot >= s.length || slot >= k.length || k[slot] != key) {
      return null;
    }
    return (T) s[slot];
  }

  /** Removes a key; unknown keys are ignored. */
  synchronized void remove(int key) {
    int slot = key >>> 8;
    if (slot < keys.length && keys[slot] == key && slots[slot] != null) {
      keys[slot] = 0;
      Object[] s = slots;
      s[slot] = null;
      slots = s;
      free.add(slot);
    }
  }
}
