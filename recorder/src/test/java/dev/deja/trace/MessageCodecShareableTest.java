package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.deja.node.NodeId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageCodecShareableTest {
    private final MessageCodec codec = new MessageCodec(MessageCodecShareableTest.class.getClassLoader());

    enum Colour { RED, GREEN }

    record Plain(int slot, long round, String value, NodeId from, Colour colour, double weight, Boolean flag) {
    }

    record Nested(Plain inner, char letter) {
    }

    record WithList(List<String> values) {
    }

    record WithMap(Map<String, Integer> counts) {
    }

    record WithArray(byte[] bytes) {
    }

    record Renamed(@JsonProperty("v") String value) {
    }

    record Ignoring(int kept, @JsonIgnore int dropped) {
    }

    record Generic<T>(T value) {
    }

    /** A compact constructor that does not give back what it was given: the receiver's decoded copy would differ. */
    record Counting(int hops) {
        Counting {
            hops = hops + 1;
        }
    }

    /** Jackson writes {@code getTotal()} as a property of its own. */
    record Computing(int a, int b) {
        public int getTotal() {
            return a + b;
        }
    }

    interface Described {
        default String getDescription() {
            return "described";
        }
    }

    record Inheriting(int a) implements Described {
    }

    /** Mutable: the receiver could see the sender change it. */
    static final class Mutable {
        public int count;
    }

    @Test
    void shareable_immutableValues_yes() {
        assertThat(codec.shareable(new Plain(1, 2, "v", new NodeId("n1"), Colour.GREEN, 0.5, null))).isTrue();
        assertThat(codec.shareable(new Plain(1, 2, null, null, null, Double.NaN, true))).isTrue();
        assertThat(codec.shareable(new Nested(new Plain(1, 2, "v", new NodeId("n1"), Colour.RED, 1, false), 'x'))).isTrue();
        assertThat(codec.shareable("a tag")).isTrue();
        assertThat(codec.shareable(42L)).isTrue();
        assertThat(codec.shareable(Colour.RED)).isTrue();
    }

    @Test
    void shareable_collectionsArraysAndMutableClasses_no() {
        assertThat(codec.shareable(new WithList(List.of("a")))).isFalse();
        assertThat(codec.shareable(new WithMap(Map.of("a", 1)))).isFalse();
        assertThat(codec.shareable(new WithArray(new byte[] {1}))).isFalse();
        assertThat(codec.shareable(new Generic<>("a"))).isFalse();
        assertThat(codec.shareable(new Mutable())).isFalse();
        assertThat(codec.shareable(List.of("a"))).isFalse();
        assertThat(codec.shareable(null)).isFalse();
    }

    @Test
    void shareable_whatJacksonWouldChange_no() {
        assertThat(codec.shareable(new Renamed("a"))).isFalse();
        assertThat(codec.shareable(new Ignoring(1, 2))).isFalse();
        assertThat(codec.shareable(new Counting(1))).as("decodes as Counting(3), not Counting(2)").isFalse();
        assertThat(codec.shareable(new Computing(1, 2))).isFalse();
        assertThat(codec.shareable(new Inheriting(1))).isFalse();
    }

    @Test
    void shareable_unpairedSurrogate_noForThatInstanceOnly() {
        assertThat(codec.shareable(new Plain(1, 2, "ok \uD83D\uDE00", null, null, 0, null))).isTrue();
        assertThat(codec.shareable(new Plain(1, 2, "bad \uD83D", null, null, 0, null))).isFalse();
        assertThat(codec.shareable(new Nested(new Plain(1, 2, "\uDE00", null, null, 0, null), 'x'))).isFalse();
        assertThat(codec.shareable("\uD83D")).isFalse();
        assertThat(codec.shareable(new Plain(3, 4, "fine", null, null, 0, null))).isTrue();
    }

    @Test
    void shareable_firstInstanceUnencodable_decidesOnTheNext() {
        assertThat(codec.shareable(new Plain(1, 2, "\uD83D", null, null, 0, null))).isFalse();
        assertThat(codec.shareable(new Plain(1, 2, "v", null, null, 0, null))).isTrue();
    }

    @Test
    void shared_sameCodecPerLoader() {
        ClassLoader loader = MessageCodecShareableTest.class.getClassLoader();
        assertThat(MessageCodec.shared(loader)).isSameAs(MessageCodec.shared(loader));
    }
}
