package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.text.Font;

/**
 * Expected outputs under {@code src/test/resources/golden/}; with {@code -Ddeja.updateGolden=true} a file is
 * first rewritten from the actual output (the project's convention).
 */
final class Golden {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden");

    private Golden() {
    }

    private static boolean updating() {
        return Boolean.getBoolean("deja.updateGolden");
    }

    /** Compares text with the golden file {@code name}. */
    static void assertText(String name, String actual) throws IOException {
        Path file = DIRECTORY.resolve(name);
        if (updating()) {
            Files.createDirectories(DIRECTORY);
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).as("golden file %s (re-record with -Ddeja.updateGolden=true)", file)
                .isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** Compares PNG bytes with the golden image {@code name}; a mismatch leaves the actual image beside it. */
    static void assertPng(String name, byte[] actual) throws IOException {
        Path file = DIRECTORY.resolve(name);
        if (updating()) {
            Files.createDirectories(DIRECTORY);
            Files.write(file, actual);
        }
        byte[] expected = Files.readAllBytes(file);
        if (!java.util.Arrays.equals(expected, actual)) {
            Path written = Path.of("target", "actual-" + name);
            Files.createDirectories(written.getParent());
            Files.write(written, actual);
            throw new AssertionError("the picture differs from the golden image " + file + "; the actual one is in "
                    + written.toAbsolutePath() + " (if the change is intended, re-record with -Ddeja.updateGolden=true;"
                    + " golden images need the font '" + Palette.FONT_FAMILY + "', installed: " + fontInstalled() + ")");
        }
    }

    /** Whether the labels' font family is installed (else JavaFX substitutes another and images differ). */
    static boolean fontInstalled() {
        return FxToolkit.call(() -> Font.getFamilies().contains(Palette.FONT_FAMILY));
    }
}
