package dev.deja.examples.paxos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.Examples;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PaxosExampleTest {
    @Test
    void registry_listsPaxosWithItsBugs() {
        PaxosExample example = (PaxosExample) Examples.byName("paxos").orElseThrow();
        assertThat(example.bugs().keySet()).containsExactly("latest-response", "spec");
        assertThat(example.nodeClass()).isEqualTo(PaxosNode.class);
        assertThat(example.driverClass()).contains(PaxosClient.class);
        assertThat(example.defaultNodes()).isEqualTo(5);
        assertThat(example.nodeArgs(Optional.of("spec"))).containsEntry("bug", "spec");
    }

    @Test
    void messages_roundTripThroughTheCodec() {
        MessageCodec codec = MessageCodec.defaultCodec();
        List<Object> messages = List.of(new Collect(0, 7), new Last(0, 7, 0, null), new Last(4, 12, 3, "v-n3"),
                new Begin(4, 12, "v-n3"), new Accepted(0, 12, "v-n3"), new Propose("v-n1"), new Query(),
                new Decided("v-n3"), "next-round");
        for (Object message : messages) {
            Payload payload = codec.encode(message);
            assertThat(codec.decode(payload)).isEqualTo(message);
        }
    }

    @Test
    void nodesAndClient_haveNoArgConstructors() throws ReflectiveOperationException {
        assertThat(PaxosNode.class.getConstructor().newInstance()).isNotNull();
        assertThat(PaxosClient.class.getConstructor().newInstance().finished()).isFalse();
    }
}
