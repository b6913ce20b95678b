package dev.deja.examples.randtree;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** RandTree, Mace's random overlay tree, with the four inconsistencies CrystalBall found. */
public final class RandTreeExample implements Example {
    @Override
    public String name() {
        return "randtree";
    }

    @Override
    public Optional<Path> script() {
        return Optional.of(Path.of("scripts", "randtree.py"));
    }

    @Override
    public String description() {
        return "random degree-bounded overlay tree after Mace's RandTree (MaceMC NSDI'07, CrystalBall NSDI'09)";
    }

    @Override
    public Class<? extends Node> nodeClass() {
        return RandTreeNode.class;
    }

    @Override
    public Map<String, String> bugs() {
        return RandTreeNode.BUGS;
    }

    @Override
    public Map<String, String> arguments() {
        return RandTreeNode.ARGUMENTS;
    }

    @Override
    public int defaultNodes() {
        return 6;
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(RandTreeClient.class);
    }
}
