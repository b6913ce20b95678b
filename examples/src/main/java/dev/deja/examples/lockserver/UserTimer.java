package dev.deja.examples.lockserver;

/** Timer tag: lock user {@code user} of a client is done thinking or done holding its lock. */
public record UserTimer(int user) {
}
