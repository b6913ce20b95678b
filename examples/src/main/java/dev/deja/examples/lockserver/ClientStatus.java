package dev.deja.examples.lockserver;

/** How many of a client's lock users have done all their rounds, of how many. */
public record ClientStatus(int finishedUsers, int users) {
    /** Whether every lock user of the client is done. */
    boolean done() {
        return finishedUsers == users;
    }
}
