package dev.deja.sim;

import dev.deja.node.NodeId;

/**
 * A place where a simulated run could go more than one way. The simulator asks its {@link ChoiceSource} at
 * every one of them, so a run is exactly the sequence of answers: replaying the answers replays the run, and
 * a search strategy (random walk, bounded depth-first search, partial-order reduction) explores by answering
 * differently.
 */
public sealed interface ChoicePoint {
    /** Which of {@code enabled} events that are due at the same virtual instant happens first. */
    record NextEvent(long step, int enabled) implements ChoicePoint {
    }

    /** Whether the network loses a message. */
    record Drop(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** Whether the network delivers a message twice. */
    record Duplicate(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** How long a message spends in the network, in milliseconds. */
    record Delay(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** Whether some running node crashes after the current step. */
    record Crash(long step) implements ChoicePoint {
    }

    /** Which of {@code candidates} running nodes crashes. */
    record CrashVictim(int candidates) implements ChoicePoint {
    }

    /** A node's random draw ({@code Env.random()}). */
    record RandomDraw(NodeId node) implements ChoicePoint {
    }

    /** A node's fixed clock offset from virtual time, chosen once when the run starts. */
    record ClockSkew(NodeId node) implements ChoicePoint {
    }
}
