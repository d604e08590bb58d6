package io.vte.metadata.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class MetadataUriTest {

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"p2p", "p2p://", "  "})
  void p2pIsTheDefault(String uri) {
    MetadataUri parsed = MetadataUri.parse(uri);
    assertTrue(parsed.isP2p());
    assertEquals(List.of(), parsed.hostPorts());
  }

  @Test
  void etcdMembersAreParsedInOrder() {
    MetadataUri uri = MetadataUri.parse("etcd://10.0.0.1:2379,etcd-b.example:2380,[::1]:2381/");
    assertFalse(uri.isTls());
    assertEquals(List.of("10.0.0.1:2379", "etcd-b.example:2380", "[::1]:2381"), uri.hostPorts());
    assertEquals(
        List.of("http://10.0.0.1:2379", "http://etcd-b.example:2380", "http://[::1]:2381"),
        uri.clientEndpoints());
    assertEquals("etcd://10.0.0.1:2379,etcd-b.example:2380,[::1]:2381", uri.toString());
  }

  @Test
  void etcdsMeansTls() {
    MetadataUri uri = MetadataUri.parse("etcds://etcd:2379");
    assertTrue(uri.isTls());
    assertEquals(List.of("https://etcd:2379"), uri.clientEndpoints());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "redis://host:6379|unknown scheme 'redis'",
        "etcd:host:2379|expected p2p or etcd://",
        "localhost:2379|expected p2p or etcd://",
        "etcd://|no etcd endpoint",
        "etcd://host|is not host:port",
        "etcd://host:|is not host:port",
        "etcd://:2379|is not host:port",
        "etcd://host:0|bad port '0'",
        "etcd://host:65536|bad port '65536'",
        "etcd://host:12ab|bad port '12ab'",
        "etcd://host:2379,,other:2379|empty endpoint",
        "etcd://ho st:2379|bad character ' '",
        "etcd://user@host:2379|bad character '@'",
        "etcd://host:2379/path|bad port '2379/path'",
        "etcd://::1:2379|bad character ':'",
      })
  void malformedUrisAreConfigurationErrorsNamingTheUriAndTheProblem(String uri, String problem) {
    VteException e = assertThrows(VteException.class, () -> MetadataUri.parse(uri));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'" + uri + "'"), e.getMessage());
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }
}
