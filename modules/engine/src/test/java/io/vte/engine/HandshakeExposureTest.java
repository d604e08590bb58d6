package io.vte.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which handshake addresses are exposed without auth, and what the warning says. */
class HandshakeExposureTest {

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:4000", "127.0.0.7:1", "localhost:80", "[::1]:9", "::1:9"})
  void loopbackIsNotExposed(String server) {
    assertEquals(Optional.empty(), HandshakeExposure.warning(server, false));
  }

  @ParameterizedTest
  @ValueSource(strings = {"198.18.0.1:4000", "0.0.0.0:4000", "node-a.example:4000", "[::]:4000"})
  void anyOtherAddressWithoutAuthIsNamedWithTheOptionThatTurnsAuthOn(String server) {
    String warning = HandshakeExposure.warning(server, false).orElseThrow();
    assertTrue(warning.contains(server), warning);
    assertTrue(warning.contains("'auth'") && warning.contains("docs/security.md"), warning);
    assertEquals(Optional.empty(), HandshakeExposure.warning(server, true), "auth on: no warning");
  }
}
