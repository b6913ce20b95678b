package dev.deja.examples.paxos;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Single-decree Paxos with the two bugs the WiDS Checker paper found. */
public final class PaxosExample implements Example {
    @Override
    public String name() {
        return "paxos";
    }

    @Override
    public Optional<Path> script() {
        return Optional.of(Path.of("scripts", "paxos.py"));
    }

    @Override
    public String description() {
        return "single-decree Paxos, every node both leader and agent (WiDS Checker, NSDI'07, section 4.1)";
    }

    @Override
    public Class<? extends Node> nodeClass() {
        return PaxosNode.class;
    }

    @Override
    public Map<String, String> bugs() {
        return PaxosNode.BUGS;
    }

    @Override
    public Map<String, String> arguments() {
        Map<String, String> arguments = new LinkedHashMap<>();
        arguments.put("slots=K", "run K independent consensus instances at once (default 1), giving a bug K chances per run");
        arguments.put("sleep=MIN..MAX", "milliseconds a leader sleeps before starting a round (default 50..300)");
        return arguments;
    }

    @Override
    public int defaultNodes() {
        return 5;
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(PaxosClient.class);
    }
}
