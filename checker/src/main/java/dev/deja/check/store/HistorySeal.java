package dev.deja.check.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof that Deja, run by this user, wrote a history database: an HMAC-SHA256 of the database file under a
 * per-user key kept outside every trace ({@code $XDG_CONFIG_HOME/deja/history.key}, else
 * {@code ~/.config/deja/history.key}, readable by the user only; {@code -Ddeja.historyKey=FILE} overrides it).
 *
 * <p>Traces are copied between machines and people, and an H2 database runs code stored in it when it opens (a
 * trigger's Java source is compiled then). So a database is opened only if its seal, {@code history.seal} beside it,
 * matches: a database that someone else wrote, or that this user's Deja did not finish writing, is never opened.
 * Writers remove the seal before they change the database and write it again once the database is closed.
 *
 * <p>Hashing the file costs: 80-180 ms for a 5 MB history in a new JVM that runs only C1 (a one-shot check), which has no
 * intrinsic for SHA-256. So the seal also names the file it was made for, by its <em>stamp</em>: device, inode, size,
 * modification time and change time, with a second HMAC binding that stamp to the file's HMAC. A database whose stamp
 * is the sealed one is the file Deja closed: its bytes cannot have changed since, because any write, and setting the
 * modification time back, moves the change time, which no program can set. Such a database is accepted without
 * hashing it again; any other (copied, moved, restored, changed, or sealed in the format before this one) is hashed
 * and compared as before.
 */
final class HistorySeal {
    /** The seal's file name, beside the database. */
    static final String FILE = "history.seal";
    // Format 2: "deja-history-seal 2 FILE_HMAC STAMP STAMP_HMAC"; format 1 (FILE_HMAC alone) is still read.
    private static final String PREFIX = "deja-history-seal 2 ";
    private static final String PREFIX_1 = "deja-history-seal 1 ";
    private static final String ALGORITHM = "HmacSHA256";
    // Databases this process sealed or verified, with the stamp they had then: a check followed by many queries (the
    // viewer runs one per table and click) reads the seal once.
    private static final Map<Path, String> VERIFIED = new ConcurrentHashMap<>();
    private static final AtomicLong filesHashed = new AtomicLong();

    private HistorySeal() {
    }

    static Path sealFile(Path database) {
        return database.resolveSibling(FILE);
    }

    /** Whether {@code database} has a seal made with this user's key for exactly its current bytes. */
    static boolean isValid(Path database) {
        Path seal = sealFile(database);
        try {
            if (!Files.isRegularFile(database) || !Files.isRegularFile(seal)) {
                return false;
            }
            String stamp = stamp(database);
            if (stamp.equals(VERIFIED.get(key(database)))) {
                return true;
            }
            String[] words = Files.readString(seal, StandardCharsets.US_ASCII).strip().split(" ");
            byte[] fileMac;
            byte[] key;
            if (words.length == 5 && (words[0] + " " + words[1] + " ").equals(PREFIX)) {
                fileMac = HexFormat.of().parseHex(words[2]);
                key = userKey();
                if (words[3].equals(stamp) && MessageDigest.isEqual(HexFormat.of().parseHex(words[4]),
                        stampMac(key, stamp, fileMac))) {
                    VERIFIED.put(key(database), stamp);
                    return true;
                }
            } else if (words.length == 3 && (words[0] + " " + words[1] + " ").equals(PREFIX_1)) {
                fileMac = HexFormat.of().parseHex(words[2]);
                key = userKey();
            } else {
                return false;
            }
            filesHashed.incrementAndGet();
            if (MessageDigest.isEqual(fileMac, mac(key, database))) {
                VERIFIED.put(key(database), stamp);
                return true;
            }
            return false;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Removes the seal before the database is changed: a writer stopped half-way leaves an unsealed file. */
    static void remove(Path database) throws IOException {
        VERIFIED.remove(key(database));
        Files.deleteIfExists(sealFile(database));
    }

    /** Seals {@code database} as it is now (it must be closed). */
    static void write(Path database) throws IOException {
        byte[] key = userKey();
        byte[] fileMac = mac(key, database);
        String stamp = stamp(database);
        Path seal = sealFile(database);
        Path temporary = seal.resolveSibling(FILE + ".tmp");
        Files.writeString(temporary, PREFIX + HexFormat.of().formatHex(fileMac) + " " + stamp + " "
                + HexFormat.of().formatHex(stampMac(key, stamp, fileMac)) + "\n", StandardCharsets.US_ASCII);
        try {
            Files.move(temporary, seal, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, seal, StandardCopyOption.REPLACE_EXISTING);
        }
        VERIFIED.put(key(database), stamp);
    }

    /** How many times this process hashed a database to check its seal (for tests). */
    static long filesHashed() {
        return filesHashed.get();
    }

    /** Forgets which databases this process sealed or verified, as a new process would (for tests). */
    static void forgetVerified() {
        VERIFIED.clear();
    }

    private static Path key(Path database) {
        return database.toAbsolutePath().normalize();
    }

    /**
     * The file's identity and times, without spaces: device, inode, size, modification and change time in nanoseconds.
     * Without the "unix" attributes (another system) it holds no change time, and never equals a stamp that has one.
     */
    static String stamp(Path database) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(database, BasicFileAttributes.class);
        String stamp = "size=" + attributes.size() + ",mtime=" + attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS);
        try {
            Map<String, Object> unix = Files.readAttributes(database, "unix:dev,ino,ctime");
            return stamp + ",ctime=" + ((FileTime) unix.get("ctime")).to(TimeUnit.NANOSECONDS) + ",dev=" + unix.get("dev")
                    + ",ino=" + unix.get("ino");
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            return stamp + ",key=" + String.valueOf(attributes.fileKey()).replace(' ', '_');
        }
    }

    /** The HMAC that binds {@code stamp} to the file whose HMAC is {@code fileMac}. */
    private static byte[] stampMac(byte[] key, String stamp, byte[] fileMac) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            mac.update(("deja-history-stamp " + stamp + " ").getBytes(StandardCharsets.US_ASCII));
            return mac.doFinal(fileMac);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    private static byte[] mac(byte[] key, Path database) throws IOException {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = Files.newInputStream(database)) {
                for (int read; (read = in.read(buffer)) >= 0; ) {
                    mac.update(buffer, 0, read);
                }
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    /** The per-user key file's location. */
    static Path keyFile() {
        String override = System.getProperty("deja.historyKey");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        String config = System.getenv("XDG_CONFIG_HOME");
        Path base = config != null && !config.isBlank() ? Path.of(config) : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("deja").resolve("history.key");
    }

    private static byte[] userKey() throws IOException {
        Path file = keyFile();
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent());
            byte[] fresh = new byte[32];
            new SecureRandom().nextBytes(fresh);
            Path temporary = Files.createTempFile(file.getParent(), "history.key", ".tmp");
            try {
                try {
                    Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    // The directory's own permissions protect it.
                }
                Files.write(temporary, fresh);
                // A hard link never replaces a key another process made meanwhile: both then use that one.
                Files.createLink(file, temporary);
            } catch (FileAlreadyExistsException raced) {
                // Made by another process meanwhile.
            } catch (UnsupportedOperationException noLinks) {
                Files.move(temporary, file);
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
        byte[] key = Files.readAllBytes(file);
        if (key.length < 16) {
            throw new IOException(file + " holds no usable key (" + key.length + " bytes); delete it to make a new one");
        }
        return key;
    }
}
