package dev.deja.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * Where the warm engine of one installation lives for this user: a private directory (mode 0700, owned by the
 * user) holding the socket, a lock, the process id and the log.
 *
 * <p>The directory is {@code $XDG_RUNTIME_DIR/deja/daemon-HASH} when a runtime directory exists, else
 * {@code ${XDG_CACHE_HOME:-$HOME/.cache}/deja/daemon-HASH}, where HASH names the installation (its real path); the
 * system property {@code deja.daemon.dir} or else the environment variable {@code DEJA_DAEMON_DIR} replaces it
 * (tests, benchmarks). A directory that exists with another owner or wider
 * permissions is refused rather than used.
 */
public record DaemonLocation(Path directory) {
    /** The longest socket path the platform accepts is 107 bytes on Linux; stay well under it. */
    private static final int MAX_SOCKET_PATH = 100;
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    /** The socket the server listens on. */
    public Path socket() {
        return directory.resolve("socket");
    }

    /** The lock the running server holds, so that at most one runs. */
    Path lock() {
        return directory.resolve("lock");
    }

    /** The server's process id, for {@code deja daemon status}. */
    Path pidFile() {
        return directory.resolve("pid");
    }

    /** Where the server's own output goes (its commands' output goes to their clients). */
    public Path log() {
        return directory.resolve("daemon.log");
    }

    /** The location of the warm engine of the installation at {@code home}. */
    public static DaemonLocation of(Path home) {
        String override = System.getProperty("deja.daemon.dir", System.getenv("DEJA_DAEMON_DIR"));
        if (override != null && !override.isBlank()) {
            return new DaemonLocation(Path.of(override).toAbsolutePath());
        }
        String name = "daemon-" + hash(home);
        Path base = runtimeBase();
        Path directory = base.resolve("deja").resolve(name);
        if (directory.resolve("socket").toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
            directory = Path.of(System.getProperty("java.io.tmpdir"), "deja-" + System.getProperty("user.name"), name);
        }
        return new DaemonLocation(directory);
    }

    private static Path runtimeBase() {
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        if (runtime != null && !runtime.isBlank() && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime);
        }
        String cache = System.getenv("XDG_CACHE_HOME");
        if (cache != null && !cache.isBlank()) {
            return Path.of(cache);
        }
        return Path.of(System.getProperty("user.home"), ".cache");
    }

    private static String hash(Path home) {
        Path real;
        try {
            real = home.toRealPath();
        } catch (IOException e) {
            real = home.toAbsolutePath().normalize();
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(real.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Creates the directory if needed (its parents as usual, itself with mode 0700) and checks that it is this
     * user's and private.
     *
     * @throws IOException if it cannot be created, or exists with another owner or other permissions
     */
    public void ensurePrivate() throws IOException {
        Files.createDirectories(directory.getParent());
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PRIVATE));
            // The umask may have taken permissions away, never added any; set them exactly anyway.
            Files.setPosixFilePermissions(directory, PRIVATE);
        } catch (FileAlreadyExistsException e) {
            // Checked below.
        }
        checkPrivate();
    }

    /** Checks that the directory is a real directory of this user with mode 0700. */
    public void checkPrivate() throws IOException {
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(directory + " is not a directory");
        }
        UserPrincipal owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS);
        UserPrincipal me = currentUser();
        if (!owner.equals(me)) {
            throw new IOException(directory + " belongs to " + owner.getName() + ", not to " + me.getName());
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
        if (!permissions.equals(PRIVATE)) {
            throw new IOException(directory + " has mode " + PosixFilePermissions.toString(permissions)
                    + ", not rwx------");
        }
    }

    /** The user this process runs as. */
    static UserPrincipal currentUser() throws IOException {
        return directoryOwnerLookup().lookupPrincipalByName(System.getProperty("user.name"));
    }

    private static java.nio.file.attribute.UserPrincipalLookupService directoryOwnerLookup() {
        return java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService();
    }
}
