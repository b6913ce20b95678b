/**
 * Chord as checked in the WiDS Checker paper (NSDI 2007, section 4.4): ten nodes join a ring of 2^12
 * identifiers at once through one bootstrap node, stabilize, and one node fails; the paper's three protocol
 * bugs are switchable ({@code succ-succ-hash}, {@code finger-lazy}, {@code finger-boundary}).
 */
package dev.deja.examples.chord;
