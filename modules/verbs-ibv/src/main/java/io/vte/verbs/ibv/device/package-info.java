/**
 * What the ibverbs provider knows of a device without calling it: GID entries and types, MTU codes,
 * the device report {@code vte devices} prints, and the port's data counters read from sysfs. The
 * provider's JNI surface and the objects it wraps stay in {@code io.vte.verbs.ibv}.
 */
package io.vte.verbs.ibv.device;
