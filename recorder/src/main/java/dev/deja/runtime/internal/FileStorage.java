package dev.deja.runtime.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * A node's durable key-to-bytes store in a directory: one file per key (hex-encoded name). Writes stay in
 * memory until {@link #sync()}, which writes each to a temporary file, forces it to disk and renames it into
 * place, so a crash leaves each key either old or new. Confined to the handler thread.
 */
public final class FileStorage {
    private static final byte[] DELETED = new byte[0];

    private final Path directory;
    private final Map<String, byte[]> unsynced = new HashMap<>();

    public FileStorage(Path directory) {
        this.directory = directory;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create storage directory " + directory, e);
        }
    }

    public Optional<byte[]> read(String key) {
        byte[] pending = unsynced.get(key);
        if (pending != null) {
            return pending == DELETED ? Optional.empty() : Optional.of(pending.clone());
        }
        try {
            return Optional.of(Files.readAllBytes(fileOf(key)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read storage key '" + key + "' from " + directory, e);
        }
    }

    public void write(String key, byte[] value) {
        unsynced.put(key, value == null ? DELETED : value.clone());
    }

    public void sync() {
        try {
            for (var entry : unsynced.entrySet()) {
                Path file = fileOf(entry.getKey());
                if (entry.getValue() == DELETED) {
                    Files.deleteIfExists(file);
                    continue;
                }
                Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
                try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    channel.write(java.nio.ByteBuffer.wrap(entry.getValue()));
                    channel.force(true);
                }
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            unsynced.clear();
            try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
                dir.force(true); // make the renames durable
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sync storage in " + directory, e);
        }
    }

    private Path fileOf(String key) {
        return directory.resolve("k-" + HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8)));
    }
}
