package dev.deja.examples.chord;

/** From the workload: stop at once without telling anyone, which the other nodes see as a crash. */
public record Fail() {
}
