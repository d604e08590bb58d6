package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.api.TransferEngine;
import io.vte.engine.SegmentHandles;
import io.vte.handshake.proto.SegmentDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No protobuf type in a public signature of the public packages of {@code io.vte.api} and {@code
 * io.vte.engine} (every package but the engine's {@code impl}): the wire format stays the
 * handshake's business, so a user compiles against VTE without protobuf and a change of the proto
 * breaks no caller. A signature is what a caller or subclass sees: supertypes, public and protected
 * fields, constructors and methods (parameters, results, exceptions, type arguments and bounds).
 */
class PublicSignaturesTest {

  @Test
  void noPublicSignatureOfTheApiOrTheEngineNamesAProtobufType() {
    List<Class<?>> types = new ArrayList<>();
    types.addAll(publicTypes(TransferEngine.class, "io.vte.api"));
    types.addAll(publicTypes(SegmentHandles.class, "io.vte.engine"));
    assertTrue(
        types.contains(TransferEngine.class) && types.contains(SegmentHandles.class),
        "the api and engine jars were read: " + types.size() + " types");
    assertTrue(
        types.stream()
            .noneMatch(t -> t.getPackageName().startsWith(EngineInternalsImportTest.IMPL)),
        "the engine's implementation package is not public");
    assertEquals(List.of(), protobufInSignatures(types));
  }

  @Test
  void aProtobufTypeInAPublicSignatureIsFound() {
    assertEquals(
        List.of(
            "PublicSignaturesTest$Leaky.descriptor(): io.vte.handshake.proto.SegmentDescriptor",
            "PublicSignaturesTest$Leaky.of(java.util.Optional<com.google.protobuf.ByteString>):"
                + " com.google.protobuf.ByteString",
            "PublicSignaturesTest$Leaky.wire: com.google.protobuf.ByteString"),
        protobufInSignatures(List.of(Leaky.class)));
  }

  /**
   * Protobuf in a public field, result and type argument, and in a private field (not reported).
   */
  public static class Leaky {
    /** A public field of a protobuf type. */
    public ByteString wire;

    private SegmentDescriptor hidden;

    /** A public constructor without protobuf. */
    public Leaky() {}

    /**
     * @return a generated message
     */
    public SegmentDescriptor descriptor() {
      return hidden;
    }

    /**
     * @param bytes protobuf as a type argument
     * @return null
     */
    public static Leaky of(Optional<ByteString> bytes) {
      return null;
    }
  }

  /**
   * @param types classes to check
   * @return {@code Type.member: protobuf type} for every protobuf type in a public signature,
   *     sorted
   */
  static List<String> protobufInSignatures(List<Class<?>> types) {
    TreeSet<String> found = new TreeSet<>();
    for (Class<?> c : types) {
      String owner = c.getName().substring(c.getPackageName().length() + 1);
      List<Type> supers = new ArrayList<>(List.of(c.getGenericInterfaces()));
      if (c.getGenericSuperclass() != null) {
        supers.add(c.getGenericSuperclass());
      }
      supers.forEach(t -> report(found, owner + " extends", t));
      for (Field f : c.getDeclaredFields()) {
        if (visible(f.getModifiers())) {
          report(found, owner + "." + f.getName(), f.getGenericType());
        }
      }
      List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
      members.addAll(List.<Constructor<?>>of(c.getDeclaredConstructors()));
      for (Executable e : members) {
        if (!visible(e.getModifiers()) || e.isSynthetic()) {
          continue;
        }
        List<String> params = new ArrayList<>();
        for (Type t : e.getGenericParameterTypes()) {
          params.add(t.getTypeName());
        }
        String where =
            owner
                + "."
                + (e instanceof Method ? e.getName() : "<init>")
                + "("
                + String.join(", ", params)
                + ")";
        for (Type t : e.getGenericParameterTypes()) {
          report(found, where, t);
        }
        for (Type t : e.getGenericExceptionTypes()) {
          report(found, where, t);
        }
        if (e instanceof Method m) {
          report(found, where, m.getGenericReturnType());
        }
      }
    }
    return List.copyOf(found);
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static void report(TreeSet<String> found, String where, Type type) {
    List<Class<?>> named = new ArrayList<>();
    collect(type, named, 0);
    for (Class<?> c : named) {
      if (isProtobuf(c)) {
        found.add(where + ": " + c.getName());
      }
    }
  }

  /** Every class a type names: itself, its type arguments, bounds and array components. */
  private static void collect(Type type, List<Class<?>> into, int depth) {
    if (depth > 8) {
      return; // recursive bounds such as <T extends Comparable<T>>
    }
    if (type instanceof Class<?> c) {
      into.add(c.isArray() ? c.getComponentType() : c);
    } else if (type instanceof ParameterizedType p) {
      collect(p.getRawType(), into, depth + 1);
      for (Type a : p.getActualTypeArguments()) {
        collect(a, into, depth + 1);
      }
    } else if (type instanceof WildcardType w) {
      Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
          .forEach(b -> collect(b, into, depth + 1));
    } else if (type instanceof GenericArrayType g) {
      collect(g.getGenericComponentType(), into, depth + 1);
    } else if (type instanceof TypeVariable<?> v) {
      for (Type b : v.getBounds()) {
        collect(b, into, depth + 1);
      }
    }
  }

  /**
   * @return true for protobuf's runtime types and every generated message, enum or builder (they
   *     extend or implement protobuf's types), and for anything of the handshake's proto package
   */
  private static boolean isProtobuf(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      if (k.getName().startsWith("com.google.protobuf.")
          || k.getPackageName().equals("io.vte.handshake.proto")
          || Stream.of(k.getInterfaces()).anyMatch(PublicSignaturesTest::isProtobuf)) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param anchor a class of the jar (or classes directory) to read
   * @param prefix the root package
   * @return the public types (top-level and nested, public all the way out) of the packages under
   *     {@code prefix}, but implementation packages ({@code .impl})
   */
  static List<Class<?>> publicTypes(Class<?> anchor, String prefix) {
    List<String> names = new ArrayList<>();
    try {
      Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      String dir = prefix.replace('.', '/') + "/";
      if (Files.isDirectory(location)) {
        try (Stream<Path> files = Files.walk(location.resolve(dir))) {
          files.forEach(p -> names.add(location.relativize(p).toString().replace('\\', '/')));
        }
      } else {
        try (JarFile jar = new JarFile(location.toFile())) {
          jar.stream().forEach(e -> names.add(e.getName()));
        }
      }
      List<Class<?>> types = new ArrayList<>();
      for (String n : names) {
        if (!n.startsWith(dir) || !n.endsWith(".class") || n.contains("/impl/")) {
          continue;
        }
        String name = n.substring(0, n.length() - ".class".length()).replace('/', '.');
        if (name.endsWith("package-info") || name.endsWith("module-info")) {
          continue;
        }
        Class<?> c = Class.forName(name, false, anchor.getClassLoader());
        if (publicAllTheWayOut(c)) {
          types.add(c);
        }
      }
      return types;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException | ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean publicAllTheWayOut(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
      if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isSynthetic()) {
        return false;
      }
    }
    return true;
  }
}
