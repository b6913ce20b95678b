package dev.deja.examples.lockserver;

/** One of a client's concurrent lock users (the paper's client threads): think, lock, hold, unlock, repeat. */
final class LockUser {
    /** Where a user is in its round. */
    enum State { THINKING, WAITING, HOLDING, DONE }

    final int id;
    State state = State.THINKING;
    /** The lock it waits for or holds, and in which mode; meaningless while thinking or done. */
    int lock;
    LockMode mode;
    int roundsDone;

    LockUser(int id) {
        this.id = id;
    }
}
