/**
 * Test utilities shared by every VTE module: deadline awaits, blocked-thread detection, leak
 * checks.
 */
package io.vte.testkit;
