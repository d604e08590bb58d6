package io.vte.verbs.soft.impl;

import io.vte.verbs.SpinBudget;

/**
 * How a soft NIC thread busy-polls: for {@code nanos} after it served a peer's request, while it
 * holds a token of {@code budget}, which the NIC threads of one provider share.
 *
 * @param nanos the spin window, 0 for none
 * @param budget the tokens of the provider's NIC threads
 */
public record NicSpin(long nanos, SpinBudget budget) {

  /**
   * @return no spin window: the NIC thread sleeps in select whenever it has nothing to do
   */
  public static NicSpin none() {
    return new NicSpin(0, new SpinBudget(1));
  }
}
