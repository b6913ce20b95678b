package dev.deja.check.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof that Deja, run by this user, wrote a history database: an HMAC-SHA256, under a per-user key kept outside
 * every trace ({@code $XDG_CONFIG_HOME/deja/history.key}, else {@code ~/.config/deja/history.key}, readable by the
 * user only; {@code -Ddeja.historyKey=FILE} overrides it), of the database file's SHA-256 digests, block by block.
 *
 * <p>Traces are copied between machines and people, and an H2 database runs code stored in it when it opens (a
 * trigger's Java source is compiled then). So a database is opened only if its seal, {@code history.seal} beside it,
 * matches: a database that someone else wrote, or that this user's Deja did not finish writing, is never opened.
 * Writers remove the seal before they change the database and write it again once the database is closed.
 *
 * <p>Hashing the file costs: 80-180 ms for a 5 MB history in a new JVM that runs only C1 (a one-shot check, the warm
 * engine), which has no intrinsic for SHA-256. So the seal also names the file it was made for, by its
 * <em>stamp</em>: device, inode, size, modification time and change time. A database whose stamp is the sealed one is
 * the file Deja closed: its bytes cannot have changed since, because any write, and setting the modification time
 * back, moves the change time, which no program can set. Such a database is accepted without hashing it again; any
 * other (copied, moved, restored, changed, or sealed in an earlier format) is hashed and compared.
 *
 * <p>And since a re-check changes a few of the file's blocks (H2 writes its new chunks and headers; the rest stays),
 * the seal holds one SHA-256 per block of the file with the block's CRC-32, and a writer that opened a sealed
 * database keeps its blocks: when it seals the file again, a block whose CRC-32 (computed natively, a few ms for the
 * whole file) is the stored one keeps its stored digest, and only the others are hashed. The CRC-32 only tells which
 * blocks changed, not whether to trust them: what a block held is trusted because this process's H2, alone holding
 * the file's lock, wrote it or left it, exactly as a seal made by hashing the whole file would trust it. A CRC-32 that
 * matches for changed bytes (one chance in 2^32 per changed block) gives a stale digest, which makes a copy of the
 * file fail its seal (the check then replays and stores the history again), never a forged file pass.
 */
final class HistorySeal {
    /** The seal's file name, beside the database. */
    static final String FILE = "history.seal";
    // Format 3, lines: "deja-history-seal 3", "stamp STAMP", "blocks BLOCK_SIZE FILE_SIZE", one "CRC32 SHA256" per
    // block (hexadecimal), and "mac HMAC" of every byte before that line. Formats 2 ("deja-history-seal 2 FILE_HMAC
    // STAMP STAMP_HMAC") and 1 (FILE_HMAC alone), which held an HMAC of the whole file, are still read.
    private static final String HEADER_3 = "deja-history-seal 3";
    private static final String PREFIX_2 = "deja-history-seal 2 ";
    private static final String PREFIX_1 = "deja-history-seal 1 ";
    private static final String ALGORITHM = "HmacSHA256";
    private static final String MAC_LINE = "mac ";
    /** The smallest block; larger files get larger blocks, so that a seal lists at most {@link #MAX_BLOCKS}. */
    static final int MIN_BLOCK_SIZE = 64 * 1024;
    private static final int MAX_BLOCKS = 1024;
    // Databases this process sealed or verified, with the stamp they had then: a check followed by many queries (the
    // viewer runs one per table and click) reads the seal once.
    private static final Map<Path, Sealed> VERIFIED = new ConcurrentHashMap<>();
    private static final AtomicLong filesHashed = new AtomicLong();
    private static final AtomicLong bytesHashed = new AtomicLong();

    /**
     * A file's blocks as a seal lists them: the block size, the file's size, and each block's CRC-32 and SHA-256, in
     * order (the last block may be shorter).
     */
    record Blocks(int blockSize, long fileSize, int[] crcs, byte[][] digests) {
        int count() {
            return crcs.length;
        }

        int length(int index) {
            return (int) Math.min(blockSize, fileSize - (long) index * blockSize);
        }
    }

    /** A database this process verified or sealed: its stamp then, and its blocks if its seal listed them. */
    private record Sealed(String stamp, Blocks blocks) {
    }

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
            Sealed known = VERIFIED.get(key(database));
            if (known != null && stamp.equals(known.stamp())) {
                return true;
            }
            String text = Files.readString(seal, StandardCharsets.US_ASCII);
            if (text.startsWith(HEADER_3 + "\n")) {
                return isValid3(database, text, stamp);
            }
            String[] words = text.strip().split(" ");
            byte[] fileMac;
            byte[] key;
            if (words.length == 5 && (words[0] + " " + words[1] + " ").equals(PREFIX_2)) {
                fileMac = HexFormat.of().parseHex(words[2]);
                key = userKey();
                if (words[3].equals(stamp) && MessageDigest.isEqual(HexFormat.of().parseHex(words[4]),
                        stampMac(key, stamp, fileMac))) {
                    VERIFIED.put(key(database), new Sealed(stamp, null));
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
                VERIFIED.put(key(database), new Sealed(stamp, null));
                return true;
            }
            return false;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isValid3(Path database, String text, String stamp) throws IOException {
        int macAt = text.lastIndexOf("\n" + MAC_LINE) + 1;
        if (macAt <= 0 || !text.endsWith("\n")) {
            return false;
        }
        byte[] sealedMac = HexFormat.of().parseHex(text.substring(macAt + MAC_LINE.length(), text.length() - 1));
        if (!MessageDigest.isEqual(sealedMac, hmac(userKey(), text.substring(0, macAt)))) {
            return false;
        }
        String[] lines = text.substring(0, macAt).split("\n");
        if (lines.length < 3 || !lines[1].startsWith("stamp ") || !lines[2].startsWith("blocks ")) {
            return false;
        }
        String[] sizes = lines[2].split(" ");
        if (sizes.length != 3) {
            return false;
        }
        int blockSize = Integer.parseInt(sizes[1]);
        long fileSize = Long.parseLong(sizes[2]);
        int count = lines.length - 3;
        if (blockSize <= 0 || fileSize < 0 || count != blockCount(fileSize, blockSize)) {
            return false;
        }
        int[] crcs = new int[count];
        byte[][] digests = new byte[count][];
        for (int i = 0; i < count; i++) {
            String[] words = lines[3 + i].split(" ");
            if (words.length != 2) {
                return false;
            }
            crcs[i] = (int) Long.parseLong(words[0], 16);
            digests[i] = HexFormat.of().parseHex(words[1]);
        }
        Blocks blocks = new Blocks(blockSize, fileSize, crcs, digests);
        if (!lines[1].substring("stamp ".length()).equals(stamp)) {
            // Not the file Deja sealed (a copy, a restored or changed file): its bytes must be the sealed ones.
            filesHashed.incrementAndGet();
            if (Files.size(database) != fileSize || !Arrays.equals(blocks.digests(),
                    hashBlocks(database, blockSize, null).digests(), (a, b) -> MessageDigest.isEqual(a, b) ? 0 : 1)) {
                return false;
            }
        }
        VERIFIED.put(key(database), new Sealed(stamp, blocks));
        return true;
    }

    /**
     * Removes the seal before the database is changed: a writer stopped half-way leaves an unsealed file. Returns the
     * blocks of the seal removed, if this process verified it and the file is still the one it verified, for
     * {@link #write(Path, Blocks)} to hash only the blocks that changed; otherwise null.
     */
    static Blocks remove(Path database) throws IOException {
        Sealed known = VERIFIED.remove(key(database));
        Files.deleteIfExists(sealFile(database));
        if (known == null || known.blocks() == null || !Files.isRegularFile(database)) {
            return null;
        }
        return known.stamp().equals(stamp(database)) ? known.blocks() : null;
    }

    /**
     * Seals {@code database} as it is now (it must be closed). {@code previous}: the blocks of the seal that {@link
     * #remove} removed before this process changed it, or null; a block whose CRC-32 is unchanged keeps its digest.
     */
    static void write(Path database, Blocks previous) throws IOException {
        byte[] key = userKey();
        String stamp = stamp(database);
        Blocks blocks = hashBlocks(database, blockSize(Files.size(database)), previous);
        StringBuilder text = new StringBuilder(HEADER_3).append('\n')
                .append("stamp ").append(stamp).append('\n')
                .append("blocks ").append(blocks.blockSize()).append(' ').append(blocks.fileSize()).append('\n');
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < blocks.count(); i++) {
            text.append(hex.toHexDigits(blocks.crcs()[i])).append(' ').append(hex.formatHex(blocks.digests()[i]))
                    .append('\n');
        }
        byte[] sealMac = hmac(key, text.toString());
        text.append(MAC_LINE).append(hex.formatHex(sealMac)).append('\n');
        Path seal = sealFile(database);
        Path temporary = seal.resolveSibling(FILE + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        try {
            Files.move(temporary, seal, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, seal, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!stamp.equals(stamp(database))) {
            // Changed while it was read: a seal that cannot match; the next open finds the file unsealed.
            Files.deleteIfExists(seal);
            return;
        }
        VERIFIED.put(key(database), new Sealed(stamp, blocks));
    }

    /** The block size of a file of {@code fileSize} bytes: at most {@link #MAX_BLOCKS} blocks. */
    static int blockSize(long fileSize) {
        long size = MIN_BLOCK_SIZE;
        while (size * MAX_BLOCKS < fileSize && size < (1 << 30)) {
            size *= 2;
        }
        return (int) size;
    }

    private static int blockCount(long fileSize, int blockSize) {
        return (int) ((fileSize + blockSize - 1) / blockSize);
    }

    /**
     * The blocks of {@code database} as it is now, of {@code blockSize} bytes; each block's SHA-256 taken from
     * {@code previous} (null: none) when its CRC-32 and length are the same there.
     */
    private static Blocks hashBlocks(Path database, int blockSize, Blocks previous) throws IOException {
        try (FileChannel channel = FileChannel.open(database, StandardOpenOption.READ)) {
            long fileSize = channel.size();
            if (previous != null && previous.blockSize() != blockSize) {
                previous = null;
            }
            int count = blockCount(fileSize, blockSize);
            int[] crcs = new int[count];
            byte[][] digests = new byte[count][];
            ByteBuffer buffer = ByteBuffer.allocate(blockSize);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            CRC32 crc = new CRC32();
            for (int i = 0; i < count; i++) {
                buffer.clear();
                long at = (long) i * blockSize;
                buffer.limit((int) Math.min(blockSize, fileSize - at));
                while (buffer.hasRemaining()) {
                    if (channel.read(buffer, at + buffer.position()) < 0) {
                        throw new IOException(database + " became shorter while it was read");
                    }
                }
                crc.reset();
                crc.update(buffer.array(), 0, buffer.limit());
                crcs[i] = (int) crc.getValue();
                if (previous != null && i < previous.count()
                        && previous.length(i) == buffer.limit() && previous.crcs()[i] == crcs[i]) {
                    digests[i] = previous.digests()[i];
                } else {
                    bytesHashed.addAndGet(buffer.limit());
                    sha.update(buffer.array(), 0, buffer.limit());
                    digests[i] = sha.digest();
                }
            }
            return new Blocks(blockSize, fileSize, crcs, digests);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }

    /** How many times this process hashed a database to check its seal (for tests). */
    static long filesHashed() {
        return filesHashed.get();
    }

    /** How many bytes of databases this process hashed, to seal or to verify them (for tests). */
    static long bytesHashed() {
        return bytesHashed.get();
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

    /** The HMAC of {@code text} (ASCII) under {@code key}. */
    private static byte[] hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(text.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }

    /** The HMAC that binds {@code stamp} to the file whose HMAC is {@code fileMac} (format 2). */
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

    /** The HMAC of the whole file (formats 1 and 2). */
    private static byte[] mac(byte[] key, Path database) throws IOException {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = Files.newInputStream(database)) {
                for (int read; (read = in.read(buffer)) >= 0; ) {
                    bytesHashed.addAndGet(read);
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
