package dev.deja.examples.lockserver;

/** A client gives a revoked lock back once none of its lock users holds it. */
public record RevokeDone(int lock) {
}
