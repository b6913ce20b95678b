package dev.deja.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryTest {
    @Test
    void of_anOddNumberOfSamples_takesTheMiddleOneAndKeepsTheOrder() {
        Summary summary = Summary.of(List.of(5.0, 1.0, 9.0, 3.0, 7.0));
        assertThat(summary.median()).isEqualTo(5.0);
        assertThat(summary.min()).isEqualTo(1.0);
        assertThat(summary.max()).isEqualTo(9.0);
        assertThat(summary.samples()).containsExactly(5.0, 1.0, 9.0, 3.0, 7.0);
    }

    @Test
    void of_anEvenNumberOfSamples_averagesTheMiddleTwo() {
        assertThat(Summary.of(List.of(4.0, 1.0, 3.0, 10.0)).median()).isEqualTo(3.5);
    }

    @Test
    void of_oneSample_isThatSampleThreeTimes() {
        Summary summary = Summary.of(List.of(2.5));
        assertThat(List.of(summary.median(), summary.min(), summary.max())).containsOnly(2.5);
    }

    @Test
    void ofRatios_dividesRoundByRound() {
        Summary ratios = Summary.ofRatios(List.of(10.0, 30.0, 8.0), List.of(5.0, 10.0, 8.0));
        assertThat(ratios.samples()).containsExactly(2.0, 3.0, 1.0);
        assertThat(ratios.median()).isEqualTo(2.0);
    }

    @Test
    void map_ofADecreasingFunction_recomputesMinAndMax() {
        Summary overhead = Summary.of(List.of(0.9, 0.99, 1.02)).map(ratio -> (1 - ratio) * 100);
        assertThat(overhead.min()).isCloseTo(-2.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(overhead.max()).isCloseTo(10.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(overhead.median()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void of_refusesNoSamplesAndNonFiniteOnes() {
        assertThatThrownBy(() -> Summary.of(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Summary.of(List.of(1.0, Double.NaN))).hasMessageContaining("NaN");
        assertThatThrownBy(() -> Summary.ofRatios(List.of(1.0), List.of(1.0, 2.0)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
