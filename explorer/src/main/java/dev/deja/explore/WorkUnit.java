package dev.deja.explore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Objects;

/**
 * One piece of an exploration that can be sent elsewhere and merged back: a strategy, a range of path numbers (the
 * randomized strategies draw path {@code n} from the seed and {@code n} alone) or a prefix of answers under which
 * a tree search explores, and a budget. Plain values only, so that it round-trips through JSON.
 *
 * @param strategy      the strategy's command-line name
 * @param seed          the exploration's seed
 * @param firstPath     the first path number of the range (randomized strategies)
 * @param endPath       one past the last path number of the range
 * @param prefix        for a tree search, the answers of the prefix under which to search, as schedule lines
 * @param budgetMillis  wall-clock budget, or 0 for none
 */
public record WorkUnit(String strategy, long seed, long firstPath, long endPath, List<String> prefix, long budgetMillis) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public WorkUnit {
        Objects.requireNonNull(strategy, "strategy");
        prefix = List.copyOf(prefix);
        if (firstPath < 0 || endPath < firstPath || budgetMillis < 0) {
            throw new IllegalArgumentException("a work unit needs 0 <= firstPath <= endPath and a budget >= 0");
        }
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static WorkUnit fromJson(String text) {
        try {
            return JSON.readValue(text, WorkUnit.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a work unit: " + e.getOriginalMessage(), e);
        }
    }
}
