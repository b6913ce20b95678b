package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.trace.internal.DocumentBuilder;
import dev.deja.trace.internal.DocumentReader;
import dev.deja.trace.internal.EntryCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DocumentFormatTest {
    @Test
    void documents_ofAnyEntryCount_splitIntoTheSameEntries() {
        DocumentBuilder builder = new DocumentBuilder();
        for (int count : new int[] {1, 2, 127, 128, 300}) {
            builder.clear();
            List<byte[]> entries = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] entry = new byte[1 + i % 200];
                Arrays.fill(entry, (byte) i);
                entries.add(entry);
                builder.add(entry, entry.length);
            }
            builder.finish();
            byte[] stored = Arrays.copyOfRange(builder.bytes(), builder.start(), builder.start() + builder.length());
            DocumentReader reader = new DocumentReader(2);
            reader.start(stored, stored.length);
            List<byte[]> read = new ArrayList<>();
            while (reader.hasNext()) {
                reader.next();
                read.add(Arrays.copyOfRange(stored, reader.entryOffset(), reader.entryOffset() + reader.entryLength()));
            }
            assertThat(read).as("%d entries", count).containsExactlyElementsOf(entries);
        }
    }

    @Test
    void aFormat1Document_isOneEntry() {
        byte[] stored = {1, 2, 3, 4, 5, 6};
        DocumentReader reader = new DocumentReader(1);
        reader.start(stored, 5);
        reader.next();
        assertThat(reader.entryOffset()).isZero();
        assertThat(reader.entryLength()).isEqualTo(5);
        assertThat(reader.hasNext()).isFalse();
    }

    @Test
    void implausibleCountsAndLengths_areCorruptEntries() {
        assertThatThrownBy(() -> new DocumentReader(2).start(new byte[] {0, 1, 1}, 3))
                .isInstanceOf(EntryCodec.CorruptEntryException.class).hasMessageContaining("claims 0 entries");
        DocumentReader tooLong = new DocumentReader(2);
        tooLong.start(new byte[] {1, 5, 1, 1}, 4);
        assertThatThrownBy(tooLong::next)
                .isInstanceOf(EntryCodec.CorruptEntryException.class).hasMessageContaining("exceeds the document");
        DocumentReader trailing = new DocumentReader(2);
        trailing.start(new byte[] {1, 1, 7, 9}, 4);
        assertThatThrownBy(trailing::next)
                .isInstanceOf(EntryCodec.CorruptEntryException.class).hasMessageContaining("1 unexpected bytes after");
    }
}
