package dev.deja.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --from POS} and {@code --to POS}, one meaning in every command: the positions of the trace's merged order
 * (the numbers {@code check}, {@code view} and {@code dump} show) that the command looks at or reports, both ends
 * included. Commands that need the state before {@code --from} still build it from the start; they just do not
 * report or draw it. Declare it as {@code @Mixin PositionRange range;}.
 */
public final class PositionRange {
    @Option(names = "--from", paramLabel = "POS", converter = Converters.Position.class,
            description = "First position to report or show (default: the start).")
    Long from;

    @Option(names = "--to", paramLabel = "POS", converter = Converters.Position.class,
            description = "Last position to report or show (default: the end).")
    Long to;

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Sets {@code --to} from an old spelling of the option (e.g. {@code replay --until}). */
    void setTo(long position) {
        to = position;
    }

    /** The first position, or 0. */
    public long fromOrStart() {
        check();
        return from == null ? 0 : from;
    }

    /** The last position, or {@link Long#MAX_VALUE}. */
    public long toOrEnd() {
        check();
        return to == null ? Long.MAX_VALUE : to;
    }

    /** Whether {@code --from} was given. */
    public boolean hasFrom() {
        return from != null;
    }

    /** Whether {@code --to} was given. */
    public boolean hasTo() {
        return to != null;
    }

    private void check() {
        if (from != null && to != null && to < from) {
            throw new CommandLine.ParameterException(mixee.commandLine(), "--to " + to + " is before --from " + from);
        }
    }
}
