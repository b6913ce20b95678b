/**
 * The replayer: merges a trace's per-node logs into one happens-before order and re-executes every recorded
 * node in one process, feeding back the recorded inputs and comparing what the nodes do with the recording.
 * Entry point: {@link dev.deja.replay.Replayer}.
 */
package dev.deja.replay;
