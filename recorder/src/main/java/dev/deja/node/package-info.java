/**
 * The API distributed-system nodes are written against: {@link dev.deja.node.Node} handlers and the
 * {@link dev.deja.node.Env} through which a node sends messages, sets timers and observes the clock,
 * randomness and its durable storage.
 */
package dev.deja.node;
