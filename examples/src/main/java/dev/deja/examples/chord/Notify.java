package dev.deja.examples.chord;

/** Stabilize: the sender believes it is the recipient's predecessor. */
public record Notify() {
}
