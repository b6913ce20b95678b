package dev.deja.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Which build of Deja an installation holds: a digest of the launcher's class path and of the time and size of
 * every part of it that the build writes, so that a server started before a rebuild is never used after it.
 */
final class BuildId {
    private BuildId() {
    }

    /** The build at {@code home} that runs with class path {@code classpath}, now. */
    static String of(Path home, String classpath) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(classpath.getBytes(StandardCharsets.UTF_8));
            Path absoluteHome = home.toAbsolutePath().normalize();
            add(digest, home.resolve("cli/target/deja.stamp"));
            for (String entry : classpath.split(java.io.File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                Path path = Path.of(entry);
                if (path.toAbsolutePath().normalize().startsWith(absoluteHome)) {
                    // The installation's own modules (jars, or class directories through a class that always changes).
                    add(digest, Files.isDirectory(path) ? path.resolve("dev/deja/main/DejaCli.class") : path);
                    if (Files.isDirectory(path)) {
                        add(digest, path.resolve("dev/deja/daemon/DaemonServer.class"));
                    }
                }
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 12);
        } catch (IOException | NoSuchAlgorithmException e) {
            // Deterministic, so that client and server agree; a build that cannot be read is rebuilt by the launcher.
            return "unreadable: " + e.getMessage();
        }
    }

    private static void add(MessageDigest digest, Path file) throws IOException {
        String stamp = file + "\0";
        if (Files.exists(file)) {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            stamp += attributes.lastModifiedTime().toMillis() + ":" + attributes.size();
        }
        digest.update(stamp.getBytes(StandardCharsets.UTF_8));
    }
}
