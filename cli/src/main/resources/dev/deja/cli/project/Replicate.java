package demo;

/** From a node to its peers: apply this operation too. */
public record Replicate(long operation) {
}
