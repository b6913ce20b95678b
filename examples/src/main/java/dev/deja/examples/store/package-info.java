/**
 * A replicated object store after BitVault, as checked in the WiDS Checker paper (NSDI 2007, section 4.3): index
 * owners on a consistent-hash ring, three durable replicas per object, heartbeat membership, repair,
 * remove-extra-replicas and load balancing, with the paper's two bugs switchable ({@code balance-race},
 * {@code transient-failure}).
 */
package dev.deja.examples.store;
