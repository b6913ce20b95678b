/**
 * Paxos as checked in the WiDS Checker paper (NSDI 2007, section 4.1): every process is both a leader and an
 * agent, with the paper's two bugs switchable ({@code latest-response}, {@code spec}). Messages between leaders and
 * agents carry the {@code slot} of the consensus instance they belong to (0 unless a node runs several, see
 * {@link dev.deja.examples.paxos.PaxosNode}).
 */
package dev.deja.examples.paxos;
