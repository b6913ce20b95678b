/**
 * Boxwood's distributed lock service as checked in the WiDS Checker paper (NSDI 2007, section 4.2): a server
 * granting multiple-reader single-writer locks and revoking them from caching clients, whose concurrent lock users
 * lock, hold and unlock them; with the paper's livelock switchable ({@code release-retry-livelock}).
 */
package dev.deja.examples.lockserver;
