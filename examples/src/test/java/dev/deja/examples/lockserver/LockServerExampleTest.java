package dev.deja.examples.lockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LockServerExampleTest {
    private final LockServerExample example = (LockServerExample) Examples.byName("lockserver").orElseThrow();

    @Test
    void registry_listsTheLockServerWithItsBug() {
        assertThat(example.bugs().keySet()).containsExactly("release-retry-livelock");
        assertThat(example.nodeClass()).isEqualTo(LockNode.class);
        assertThat(example.driverClass()).contains(LockDriver.class);
        assertThat(example.defaultNodes()).isEqualTo(21);
        assertThat(example.arguments()).containsOnlyKeys("rounds=K");
        assertThat(LockClient.parseRounds(example.longRunArguments().get("rounds"))).isEqualTo(LockClient.MAX_ROUNDS);
        assertThat(example.nodeArgs(Optional.of("release-retry-livelock")))
                .containsEntry("bug", "release-retry-livelock");
    }

    @Test
    void nodeIds_areTheServerThenClientsFromC1() {
        assertThat(example.nodeIds(21)).hasSize(21).startsWith(new NodeId("server"), new NodeId("c1"))
                .endsWith(new NodeId("c20"));
        assertThat(example.nodeIds(2)).containsExactly(new NodeId("server"), new NodeId("c1"));
        assertThatThrownBy(() -> example.nodeIds(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one client");
    }

    @Test
    void messages_roundTripThroughTheCodec() {
        MessageCodec codec = MessageCodec.defaultCodec();
        List<Object> messages = List.of(new Acquire(2, LockMode.EXCLUSIVE), new Grant(2, LockMode.SHARED),
                new Revoke(1), new RevokeDone(1), new Release(3), new ReleaseGranted(3), new ReleaseDenied(3),
                new Start(), new ClientStatus(4, 5), new UserTimer(4));
        for (Object message : messages) {
            Payload payload = codec.encode(message);
            assertThat(codec.decode(payload)).isEqualTo(message);
        }
    }

    @Test
    void nodesAndDriver_haveNoArgConstructors() throws ReflectiveOperationException {
        assertThat(LockNode.class.getConstructor().newInstance()).isNotNull();
        assertThat(LockDriver.class.getConstructor().newInstance().finished()).isFalse();
    }
}
