package dev.deja.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    private static Schedule sample() {
        return new Schedule(new Simulator.Exploration(10, true, false, 1000), 3, true, List.of(
                new Schedule.Answer(Schedule.Kind.PICK, 1, 3, "deliver n1->n2 Accept"),
                new Schedule.Answer(Schedule.Kind.CHANCE, 1, 0, "drop n1->n2"),
                new Schedule.Answer(Schedule.Kind.BETWEEN, 7, 0, ""),
                new Schedule.Answer(Schedule.Kind.BITS, -8230719164553473523L, 0, "random n2")));
    }

    @Test
    void text_readBack_isTheSameSchedule() {
        Schedule schedule = sample();
        Schedule read = Schedule.parse(schedule.text().lines().toList(), "s");
        assertThat(read).isEqualTo(schedule);
        assertThat(schedule.text()).startsWith("deja-schedule 1\nwindow-ms 10\ncrash-points yes\n")
                .contains("pick 1 of 3 deliver n1->n2 Accept\nchance yes drop n1->n2\nbetween 7\nbits -8230719164553473523 random n2\n");
    }

    @Test
    void parse_wrongVersion_namesTheFileAndLine() {
        assertThatThrownBy(() -> Schedule.parse(List.of("# a comment", "deja-schedule 9"), "p.schedule"))
                .hasMessage("p.schedule: line 2: expected 'deja-schedule 1' (a schedule written by deja explore)");
    }

    @Test
    void parse_malformedAnswer_namesTheLine() {
        assertThatThrownBy(() -> Schedule.parse(List.of("deja-schedule 1", "pick two of 3"), "p.schedule"))
                .hasMessage("p.schedule: line 2: malformed line 'pick two of 3'");
        assertThatThrownBy(() -> Schedule.parse(List.of("deja-schedule 1", "maybe 3"), "p.schedule"))
                .hasMessageStartingWith("p.schedule: line 2: expected a header line or pick, chance, between or bits");
    }

    @Test
    void replay_answersInOrder_andRefusesAnotherQuestion() {
        ChoiceSource source = sample().replay("p.schedule");
        ChoicePoint.Enabled a = new ChoicePoint.Enabled(ChoicePoint.EventKind.DELIVERY, N2, N1, 1, 0, "Accept", 5, -1, 0);
        assertThat(source.pick(new ChoicePoint.NextEvent(0, List.of(a, a, a)), 3)).isEqualTo(1);
        assertThat(source.chance(new ChoicePoint.Drop(N1, N2), 0.1)).isTrue();
        assertThatThrownBy(() -> source.bits(new ChoicePoint.RandomDraw(N1)))
                .hasMessage("p.schedule: answer 3 is a between, but the run asks a random draw of n1 (are the settings "
                        + "those of the explored run?)");
    }

    @Test
    void replay_pastTheLastAnswer_saysSo() {
        ChoiceSource source = new Schedule(Simulator.Exploration.NONE, 0, false, List.of()).replay("e.schedule");
        assertThatThrownBy(() -> source.chance(new ChoicePoint.Drop(N1, N2), 0.5))
                .hasMessageStartingWith("e.schedule: the run asks whether a message n1->n2 is lost after the schedule's 0 answers");
    }

    @Test
    void replayThen_givesThePrefixThenAsksTheNextSource() {
        Schedule prefix = new Schedule(Simulator.Exploration.NONE, 1, true,
                List.of(new Schedule.Answer(Schedule.Kind.BETWEEN, 7, 0, "")));
        ChoiceSource source = prefix.replayThen("p.schedule", ChoiceSource.seeded(3));
        ChoiceSource same = ChoiceSource.seeded(3);
        ChoicePoint.Delay delay = new ChoicePoint.Delay(N1, N2);
        assertThat(source.between(delay, 1, 100)).isEqualTo(7);
        assertThat(source.between(delay, 1, 100)).isEqualTo(same.between(delay, 1, 100));
    }
}
