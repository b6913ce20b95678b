package dev.deja.replay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RememberedSendsTest {
    private record Key(int sender, long messageId) {
    }

    private record Value(long lamport, int receiver) {
    }

    @Test
    void put_thenFind_returnsTheSendUntilItIsTheOldestBeyondCapacity() {
        RememberedSends sends = new RememberedSends(2);
        sends.put(0, 7, 10, 1);
        sends.put(1, 7, 11, 0);
        assertThat(sends.lamport(sends.find(0, 7))).isEqualTo(10);
        assertThat(sends.receiver(sends.find(1, 7))).isEqualTo(0);
        sends.put(0, 8, 12, 1);
        assertThat(sends.find(0, 7)).isEqualTo(-1);
        assertThat(sends.forgottenUpToLamport()).isEqualTo(10);
        assertThat(sends.find(1, 7)).isNotNegative();
        assertThat(sends.find(0, 8)).isNotNegative();
    }

    @Test
    void find_agreesWithAnInsertionOrderedMap_overRandomSends() {
        long seed = Long.getLong("deja.sendsSeed", System.nanoTime());
        System.out.println("RememberedSendsTest seed " + seed + " (rerun: -Ddeja.sendsSeed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        for (int capacity : new int[] {1, 3, 64, 1000}) {
            RememberedSends sends = new RememberedSends(capacity);
            LinkedHashMap<Key, Value> reference = new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Key, Value> eldest) {
                    return size() > capacity;
                }
            };
            for (int i = 0; i < 20_000; i++) {
                // Few senders and clustered ids, so that probe runs collide and deletions shift entries.
                Key key = new Key(random.nextInt(4), random.nextLong(capacity * 3L + 5));
                if (random.nextInt(3) > 0) {
                    Value value = new Value(random.nextLong(1_000_000), random.nextInt(5));
                    sends.put(key.sender(), key.messageId(), value.lamport(), value.receiver());
                    if (reference.containsKey(key)) {
                        reference.replace(key, value); // an update keeps the key's place, as the table does
                    } else {
                        reference.put(key, value);
                    }
                }
                Key probe = new Key(random.nextInt(4), random.nextLong(capacity * 3L + 5));
                int slot = sends.find(probe.sender(), probe.messageId());
                Value expected = reference.get(probe);
                if (expected == null) {
                    assertThat(slot).as("seed %d, capacity %d, step %d: %s", seed, capacity, i, probe).isEqualTo(-1);
                } else {
                    assertThat(slot).as("seed %d, capacity %d, step %d: %s", seed, capacity, i, probe).isNotNegative();
                    assertThat(new Value(sends.lamport(slot), sends.receiver(slot))).isEqualTo(expected);
                }
                assertThat(sends.size()).isEqualTo(reference.size());
            }
        }
    }
}
