package dev.deja.examples.chord;

/** The answer to {@link Ping}. */
public record Pong() {
}
