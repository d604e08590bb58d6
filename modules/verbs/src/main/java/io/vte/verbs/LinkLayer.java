package io.vte.verbs;

/** A port's link layer. Soft verbs reports {@link #ETHERNET} (its wire is TCP/IP). */
public enum LinkLayer {
  /** Unspecified (0). */
  UNSPECIFIED,
  /** InfiniBand (1). */
  INFINIBAND,
  /** Ethernet, i.e. RoCE (2). */
  ETHERNET
}
