/**
 * Paxos as checked in the WiDS Checker paper (NSDI 2007, section 4.1): every process is both a leader and an
 * agent, with the paper's two bugs switchable ({@code latest-response}, {@code spec}).
 */
package dev.deja.examples.paxos;
