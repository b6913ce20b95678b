package dev.deja.sim;

import dev.deja.node.NodeId;
import dev.deja.runtime.FaultModel;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSummary;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The network a recorded run had, for simulated runs that continue it ({@code --from TRACE --at POSITION}, the walks of
 * {@code check --classify-liveness}): message delay, loss and duplication, so that a continuation meets the network the
 * recording met rather than the simulator's defaults.
 *
 * <p>Where the figures come from, first match wins:
 * <ol>
 *   <li>a trace written by {@code deja simulate}: the settings its {@code trace.json} holds (delay range, drop and
 *       duplicate probabilities), exactly the network the recording was drawn from;</li>
 *   <li>any other trace (a deployment's, or one without {@code trace.json}): delays measured on the logs, from the
 *       shortest to the longest time between a message's send and its receive (the two nodes' recorded clocks, so
 *       clock offsets between hosts count too); loss and duplication as {@code deploy} injected them
 *       ({@code trace.json}'s {@code faults}), or, without that, measured: the share of messages between recorded nodes
 *       that were never received although their receiver recorded on for longer than the longest delay, and the share
 *       of messages received more than once;</li>
 *   <li>a trace with no message received: the simulator's defaults for the delay (1..10 ms), no loss.</li>
 * </ol>
 * Partitions, crashes and clock skew of the recorded run are not carried over: they were events of that run, timed from
 * its start, not properties of its network.
 *
 * @param dropProbability      chance that a message is lost
 * @param duplicateProbability chance that a message is delivered twice
 * @param minDelayMillis       shortest delay
 * @param maxDelayMillis       longest delay
 * @param source               where the figures come from, in words, e.g. {@code trace.json of deja simulate}
 */
public record RecordedNetwork(double dropProbability, double duplicateProbability, long minDelayMillis,
                             long maxDelayMillis, String source) {
    /** The simulator's default delays, used when nothing was recorded. */
    private static final long DEFAULT_MIN_DELAY_MILLIS = 1;
    private static final long DEFAULT_MAX_DELAY_MILLIS = 10;

    /** The network of {@code recording}. */
    public static RecordedNetwork of(TraceStart.Recording recording) {
        Optional<TraceSummary> summary = Trace.open(recording.directory()).summary();
        if (summary.isPresent() && "simulate".equals(summary.get().kind())) {
            Map<String, Object> settings = summary.get().settings();
            FaultModel recorded = FaultModel.fromJson(networkOf(settings));
            return new RecordedNetwork(recorded.dropProbability(), recorded.duplicateProbability(),
                    recorded.minDelayMillis(), recorded.maxDelayMillis(), "trace.json of deja simulate");
        }
        Measured measured = measure(recording);
        Optional<FaultModel> injected = summary.flatMap(s -> faultsOf(s.settings()));
        long min = measured.received() == 0 ? DEFAULT_MIN_DELAY_MILLIS : measured.minDelayMillis();
        long max = measured.received() == 0 ? DEFAULT_MAX_DELAY_MILLIS : measured.maxDelayMillis();
        String delays = measured.received() == 0 ? "no message received: the simulator's default delays"
                : String.format(Locale.ROOT, "delays measured on %,d messages", measured.received());
        if (injected.isPresent()) {
            return new RecordedNetwork(injected.get().dropProbability(), injected.get().duplicateProbability(), min, max,
                    delays + ", loss and duplication as injected (trace.json)");
        }
        return new RecordedNetwork(measured.lossShare(), measured.duplicateShare(), min, max,
                delays + (measured.received() == 0 ? "" : ", loss and duplication measured"));
    }

    /** {@code base} with this network's delay, loss and duplication; its other settings unchanged. */
    public FaultModel applyTo(FaultModel base) {
        return base.toBuilder().dropProbability(dropProbability).duplicateProbability(duplicateProbability)
                .delayMillis(minDelayMillis, maxDelayMillis).build();
    }

    /** E.g. {@code 1..10 ms delays, 0% loss, 0% duplication (trace.json of deja simulate)}. */
    public String describe() {
        return String.format(Locale.ROOT, "%d..%d ms delays, %s loss, %s duplication (%s)", minDelayMillis,
                maxDelayMillis, percent(dropProbability), percent(duplicateProbability), source);
    }

    private static String percent(double share) {
        return share == 0 ? "no" : String.format(Locale.ROOT, "%.3g%%", 100 * share);
    }

    /** The network keys of a {@code deja simulate} summary's settings. */
    private static Map<String, Object> networkOf(Map<String, Object> settings) {
        Map<String, Object> out = new HashMap<>();
        for (String key : List.of("dropProbability", "duplicateProbability", "delayMillis")) {
            if (settings.get(key) != null) {
                out.put(key, settings.get(key));
            }
        }
        return out;
    }

    /** The {@code faults} a deployment's summary holds, if any. */
    private static Optional<FaultModel> faultsOf(Map<String, Object> settings) {
        if (!(settings.get("faults") instanceof Map<?, ?> faults)) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) faults;
        return Optional.of(FaultModel.fromJson(networkOf(map)));
    }

    private record Measured(long received, long minDelayMillis, long maxDelayMillis, double lossShare,
                            double duplicateShare) {
    }

    private record MessageKey(NodeId from, long messageId) {
    }

    private record Sent(NodeId to, long atMillis) {
    }

    /** Delays, loss and duplication as the logs show them. */
    private static Measured measure(TraceStart.Recording recording) {
        Map<MessageKey, Sent> sent = new HashMap<>();
        Map<NodeId, Long> lastMillis = new HashMap<>();
        recording.logs().forEach((node, entries) -> {
            for (TraceEvent entry : entries) {
                if (entry.event() instanceof Event.Send send && recording.logs().containsKey(send.to())
                        && !send.to().equals(node)) {
                    sent.putIfAbsent(new MessageKey(node, send.messageId()), new Sent(send.to(), entry.atMillis()));
                }
                lastMillis.merge(node, entry.atMillis(), Math::max);
            }
        });
        Map<MessageKey, Integer> receives = new HashMap<>();
        long min = Long.MAX_VALUE;
        long max = 0;
        long received = 0;
        for (Map.Entry<NodeId, List<TraceEvent>> log : recording.logs().entrySet()) {
            for (TraceEvent entry : log.getValue()) {
                if (entry.event() instanceof Event.Receive receive) {
                    MessageKey key = new MessageKey(receive.from(), receive.messageId());
                    Sent send = sent.get(key);
                    if (send == null || receives.merge(key, 1, Integer::sum) > 1) {
                        continue;
                    }
                    long delay = Math.max(0, entry.atMillis() - send.atMillis());
                    min = Math.min(min, delay);
                    max = Math.max(max, delay);
                    received++;
                }
            }
        }
        if (received == 0) {
            return new Measured(0, 0, 0, 0, 0);
        }
        long longest = max;
        long judged = 0;
        long lost = 0;
        for (Map.Entry<MessageKey, Sent> message : sent.entrySet()) {
            Sent send = message.getValue();
            // Only a message its receiver would have had time to receive counts: the others may still be in flight.
            if (lastMillis.getOrDefault(send.to(), Long.MIN_VALUE) > send.atMillis() + longest) {
                judged++;
                if (!receives.containsKey(message.getKey())) {
                    lost++;
                }
            }
        }
        long duplicated = receives.values().stream().filter(count -> count > 1).count();
        return new Measured(received, min, max, judged == 0 ? 0 : (double) lost / judged,
                (double) duplicated / receives.size());
    }
}
