package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkUnitTest {
    @Test
    void json_roundTrip_givesTheSameUnit() {
        WorkUnit unit = new WorkUnit("pos", 7, 100, 200, List.of("pick 1 of 3", "chance no"), 60_000);
        assertThat(WorkUnit.fromJson(unit.toJson())).isEqualTo(unit);
    }

    @Test
    void constructor_emptyRangeBackwards_isRefused() {
        assertThatThrownBy(() -> new WorkUnit("random", 1, 5, 4, List.of(), 0))
                .hasMessage("a work unit needs 0 <= firstPath <= endPath and a budget >= 0");
    }
}
