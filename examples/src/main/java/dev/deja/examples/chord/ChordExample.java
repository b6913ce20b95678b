package dev.deja.examples.chord;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Chord with the three protocol bugs the WiDS Checker paper found in Macedon's implementation. */
public final class ChordExample implements Example {
    @Override
    public String name() {
        return "chord";
    }

    @Override
    public Optional<Path> script() {
        return Optional.of(Path.of("scripts", "chord.py"));
    }

    @Override
    public String description() {
        return "Chord ring: 10 nodes join at once, one fails after stabilization (WiDS Checker, NSDI'07, section 4.4)";
    }

    @Override
    public Class<? extends Node> nodeClass() {
        return ChordNode.class;
    }

    @Override
    public Map<String, String> bugs() {
        return ChordNode.BUGS;
    }

    @Override
    public int defaultNodes() {
        return 10;
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(ChordDriver.class);
    }
}
