package demo;

/** From the client: apply this operation. */
public record Add(long operation) {
}
