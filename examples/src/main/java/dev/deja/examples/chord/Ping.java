package dev.deja.examples.chord;

/** Check-predecessor: are you alive? Answered with {@link Pong}. */
public record Ping() {
}
