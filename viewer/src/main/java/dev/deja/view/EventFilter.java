package dev.deja.view;

import dev.deja.node.NodeId;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which events to show. An event passes when every given condition holds:
 * <ul>
 *   <li>{@code nodes}: it belongs to one of these nodes (empty: any node; the other nodes' lanes are hidden);</li>
 *   <li>{@code messageTypes}: it is a send or receive of a message of one of these types, by simple or full
 *       class name (empty: any event);</li>
 *   <li>{@code text}: its content contains this text, ignoring case: a message's JSON (a send is matched by
 *       the content its receiver recorded), a timer's tag, a storage key, a start's class and arguments
 *       (empty: any event);</li>
 *   <li>{@code timers}: timer firings are shown or hidden;</li>
 *   <li>{@code positions}: it is at one of these positions (empty: any position), as {@code deja why} shows only
 *       the events of a finding's witness history.</li>
 * </ul>
 */
public record EventFilter(Set<NodeId> nodes, Set<String> messageTypes, String text, Timers timers,
                          Set<Integer> positions) {
    /** Whether timer firings are shown. */
    public enum Timers { SHOW, HIDE }

    /** Everything. */
    public static final EventFilter ALL = new EventFilter(Set.of(), Set.of(), "", Timers.SHOW, Set.of());

    public EventFilter {
        positions = positions == null ? Set.of() : Set.copyOf(positions);
        nodes = Set.copyOf(nodes);
        messageTypes = Set.copyOf(messageTypes);
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(timers, "timers");
    }

    /** A filter on nodes, message types, text and timers, at any position. */
    public EventFilter(Set<NodeId> nodes, Set<String> messageTypes, String text, Timers timers) {
        this(nodes, messageTypes, text, timers, Set.of());
    }

    /** Whether this filter lets every event through. */
    public boolean isAll() {
        return nodes.isEmpty() && messageTypes.isEmpty() && text.isEmpty() && timers == Timers.SHOW && positions.isEmpty();
    }

    /** The text to search for, lower-cased. */
    public String textLowerCase() {
        return text.toLowerCase(Locale.ROOT);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a filter condition by condition. */
    public static final class Builder {
        private final Set<NodeId> nodes = new LinkedHashSet<>();
        private final Set<String> messageTypes = new LinkedHashSet<>();
        private String text = "";
        private Timers timers = Timers.SHOW;
        private final Set<Integer> positions = new LinkedHashSet<>();

        private Builder() {
        }

        public Builder node(NodeId node) {
            nodes.add(node);
            return this;
        }

        public Builder nodes(Collection<NodeId> values) {
            nodes.addAll(values);
            return this;
        }

        public Builder messageType(String type) {
            messageTypes.add(type);
            return this;
        }

        public Builder messageTypes(Collection<String> values) {
            messageTypes.addAll(values);
            return this;
        }

        public Builder text(String value) {
            text = value == null ? "" : value.strip();
            return this;
        }

        public Builder timers(Timers value) {
            timers = value;
            return this;
        }

        /** Only these positions (added to those given before). */
        public Builder positions(Collection<Integer> values) {
            positions.addAll(values);
            return this;
        }

        public EventFilter build() {
            return new EventFilter(nodes, messageTypes, text, timers, positions);
        }
    }
}
