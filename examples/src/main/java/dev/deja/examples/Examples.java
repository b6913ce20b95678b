package dev.deja.examples;

import dev.deja.examples.chord.ChordExample;
import dev.deja.examples.lockserver.LockServerExample;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.examples.randtree.RandTreeExample;
import dev.deja.examples.store.StoreExample;
import java.util.List;
import java.util.Optional;

/** The registry of built-in examples, by CLI name. */
public final class Examples {
    private static final List<Example> ALL = List.of(new PaxosExample(), new ChordExample(), new LockServerExample(),
            new StoreExample(), new RandTreeExample());

    private Examples() {
    }

    /** Every example, in CLI order. */
    public static List<Example> all() {
        return ALL;
    }

    /** The example called {@code name}, if there is one. */
    public static Optional<Example> byName(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
