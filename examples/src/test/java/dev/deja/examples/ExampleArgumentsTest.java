package dev.deja.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExampleArgumentsTest {
    @Test
    void intFromTo_absent_isTheDefault() {
        assertThat(ExampleArguments.intFromTo("paxos", "slots", null, 7, 1, 10, "instances")).isEqualTo(7);
    }

    @Test
    void intFromTo_inRange_isTheNumber() {
        assertThat(ExampleArguments.intFromTo("paxos", "slots", " 1 ", 7, 1, 10, "instances")).isEqualTo(1);
        assertThat(ExampleArguments.intFromTo("paxos", "slots", "10", 7, 1, 10, "instances")).isEqualTo(10);
    }

    @Test
    void intFromTo_outOfRangeOrNotANumber_isRefusedNamingExampleArgumentTextAndRange() {
        for (String bad : new String[] {"0", "11", "", "ten", "2.5"}) {
            assertThatThrownBy(() -> ExampleArguments.intFromTo("paxos", "slots", bad, 7, 1, 10, "instances"))
                    .as("slots=%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("paxos argument slots='" + bad + "' must be a number of instances from 1 to 10");
        }
    }
}
