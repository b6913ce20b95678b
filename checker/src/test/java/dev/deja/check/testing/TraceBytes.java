package dev.deja.check.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.stream.Stream;

/** The bytes of a trace's node logs, for tests that promise two runs wrote the same trace. */
public final class TraceBytes {
    private TraceBytes() {
    }

    /**
     * Every file under {@code TRACE/nodes}, in path order, one line each: its path relative to the trace and the
     * SHA-256 of its bytes. Two traces with equal digests hold byte-identical node logs; {@code trace.json}, which
     * records the command line, is not part of it.
     */
    public static String nodeLogDigests(Path trace) {
        StringBuilder out = new StringBuilder();
        try (Stream<Path> files = Files.walk(trace.resolve("nodes"))) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
                out.append(trace.relativize(file)).append(' ').append(HexFormat.of().formatHex(digest)).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return out.toString();
    }
}
