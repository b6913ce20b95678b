package dev.deja.trace;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What code a node ran: its jar's version, a digest of its class file and, when it came from a jar, a digest of
 * that jar, as one line written into each node's manifest ({@code codeVersion}) and {@code trace.json}, e.g.
 * {@code 1.0 (class sha256 0f3a9c1d22b4, jar store.jar sha256 8e01c2aa9f10)}. A replay compares the class digest
 * with the class it loads and says so before it starts when they differ: a replay of other code diverges or, worse,
 * checks other code than the one recorded.
 */
public final class CodeFingerprint {
    private static final Pattern CLASS_DIGEST = Pattern.compile("class sha256 ([0-9a-f]+)");
    private static final Map<Path, String> JAR_DIGESTS = new ConcurrentHashMap<>();

    private CodeFingerprint() {
    }

    /** The fingerprint of {@code type}'s code. */
    public static String of(Class<?> type) {
        String version = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
        StringBuilder out = new StringBuilder(version == null ? "unknown" : version);
        List<String> parts = new ArrayList<>();
        classDigest(type).ifPresent(digest -> parts.add("class sha256 " + digest));
        jar(type).ifPresent(jar -> parts.add("jar " + jar.getFileName() + " sha256 "
                + JAR_DIGESTS.computeIfAbsent(jar, CodeFingerprint::fileDigest)));
        if (!parts.isEmpty()) {
            out.append(" (").append(String.join(", ", parts)).append(')');
        }
        return out.toString();
    }

    /** The class digest of a fingerprint written by {@link #of}, if it has one (older traces do not). */
    public static Optional<String> classDigestOf(String fingerprint) {
        Matcher matcher = CLASS_DIGEST.matcher(fingerprint == null ? "" : fingerprint);
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /**
     * The nodes of {@code trace} whose class, as {@code loader} loads it now, differs from the recorded one: one
     * line each, naming the node, the class and both digests. Nodes recorded without a class digest, and classes
     * that cannot be loaded (the replay reports those itself), are not compared.
     */
    public static List<String> differences(Trace trace, ClassLoader loader) {
        return differences(trace.nodes().stream().map(NodeLog::manifest).toList(), loader);
    }

    /** {@link #differences(Trace, ClassLoader)} from the nodes' manifests alone ({@link Trace#manifests}). */
    public static List<String> differences(List<NodeManifest> manifests, ClassLoader loader) {
        List<String> out = new ArrayList<>();
        Map<String, String> now = new ConcurrentHashMap<>();
        for (NodeManifest manifest : manifests) {
            Optional<String> recorded = classDigestOf(manifest.codeVersion());
            if (recorded.isEmpty() || manifest.nodeClass() == null) {
                continue;
            }
            String current = now.computeIfAbsent(manifest.nodeClass(), name -> {
                try {
                    return classDigest(Class.forName(name, false, loader)).orElse("");
                } catch (ClassNotFoundException | LinkageError e) {
                    return "";
                }
            });
            if (!current.isEmpty() && !current.equals(recorded.get())) {
                out.add("node " + manifest.node() + ": class " + manifest.nodeClass() + " differs from the recorded one"
                        + " (recorded class sha256 " + recorded.get() + ", now " + current + ")");
            }
        }
        return out;
    }

    private static Optional<String> classDigest(Class<?> type) {
        String resource = type.getName().replace('.', '/') + ".class";
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            return Optional.of(shortHex(digest().digest(in.readAllBytes())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> jar(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return Optional.empty();
        }
        try {
            Path path = Path.of(source.getLocation().toURI());
            return Files.isRegularFile(path) && path.toString().endsWith(".jar") ? Optional.of(path) : Optional.empty();
        } catch (URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return Optional.empty();
        }
    }

    private static String fileDigest(Path file) {
        MessageDigest digest = digest();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int read;
            while ((read = in.read(buffer)) > 0) {
                digest.update(buffer, 0, read);
            }
        } catch (IOException e) {
            return "unreadable";
        }
        return shortHex(digest.digest());
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The first 12 hex digits: enough to tell builds apart, short enough to read. */
    private static String shortHex(byte[] digest) {
        return HexFormat.of().formatHex(digest).substring(0, 12);
    }
}
