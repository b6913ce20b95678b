package dev.deja.check.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.DerivedValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A chunk of a derived value's changes reads back to the same changes, unchanged values and reads included. */
class DerivedChunkTest {
    @Test
    void read_writtenChunk_givesBackTheChanges() throws Exception {
        List<DerivedValues.Change> changes = List.of(
                new DerivedValues.Change(0, "(0, 'v-n1')", List.of("Agent", "event")),
                new DerivedValues.Change(3, null, List.of()),
                new DerivedValues.Change(7, "'it\\'s \\u00e9'", null),
                new DerivedValues.Change(Long.MAX_VALUE, "None", List.of("clock")));
        List<DerivedValues.Change> read = new ArrayList<>();

        DerivedChunk.read(DerivedChunk.write(changes), read);

        assertThat(read).isEqualTo(changes);
    }

    @Test
    void read_damagedChunk_saysSoAndHowToRebuild() throws Exception {
        byte[] stored = DerivedChunk.write(List.of(new DerivedValues.Change(1, "1", null)));
        byte[] damaged = Arrays.copyOf(stored, stored.length);
        // The first change's position, an integer, becomes a text string of length 0.
        damaged[2] = 0x60;

        assertThatThrownBy(() -> DerivedChunk.read(damaged, new ArrayList<>()))
                .isInstanceOf(CheckDatabaseException.class).hasMessageContaining("deja check --fresh");
    }
}
