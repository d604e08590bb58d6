package io.vte.engine.impl.owner;

import io.vte.engine.impl.rail.Rail;
import io.vte.handshake.NicPath;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which owner of one local device runs what: the endpoints of a peer NIC path (so a rail's slices
 * and a peer's connect requests) and the async events of a QP. Every route to an owner goes through
 * here, so a slice submitted alone, a slice submitted in a batch and a passive connect from the
 * same peer NIC path land on the same owner. Thread-safe: the owners are fixed once added; the QP
 * map is concurrent.
 */
final class OwnerDirectory {

  private final Owner[] owners;
  private final List<Owner> all;
  private final Map<Integer, Owner> byQp = new ConcurrentHashMap<>();

  /**
   * @param count the number of owners (the worker-count snapshot), at least 1
   */
  OwnerDirectory(int count) {
    this.owners = new Owner[count];
    this.all = Arrays.asList(owners);
  }

  /** Adds an owner under its {@link Owner#index()}; done once per owner, before any routing. */
  void add(Owner owner) {
    owners[owner.index()] = owner;
  }

  /**
   * @return the owner of the endpoints to {@code peer}
   */
  Owner ownerOf(NicPath peer) {
    return owners[peer.ownerIndex(owners.length)];
  }

  /**
   * @return the owner of the endpoint a rail's slices use
   */
  Owner ownerOf(Rail rail) {
    return ownerOf(rail.peerNicPath());
  }

  /**
   * @return the owner of the endpoint that holds QP {@code qpNum}, or null when no live endpoint
   *     does
   */
  Owner ownerOfQp(int qpNum) {
    return byQp.get(qpNum);
  }

  /** Records that {@code owner} created QP {@code qpNum} (for its async events). */
  void qpCreated(int qpNum, Owner owner) {
    byQp.put(qpNum, owner);
  }

  /** Forgets QP {@code qpNum} if {@code owner} still holds it. */
  void qpDestroyed(int qpNum, Owner owner) {
    byQp.remove(qpNum, owner);
  }

  /**
   * @return the number of live QPs of the owners
   */
  int liveQpCount() {
    return byQp.size();
  }

  /**
   * @return a snapshot of the live QP numbers
   */
  List<Integer> liveQpNumbers() {
    return List.copyOf(byQp.keySet());
  }

  /**
   * @return the owner of index {@code index}
   */
  Owner owner(int index) {
    return owners[index];
  }

  /**
   * @return every owner, by index
   */
  List<Owner> all() {
    return all;
  }
}
