package dev.deja.node;

/** Identifies one timer set by a node; unique within one incarnation of that node. */
public record TimerId(long value) {
    @Override
    public String toString() {
        return "timer#" + value;
    }
}
