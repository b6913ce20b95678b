package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private final AtomicLong nanos = new AtomicLong();
    private final List<String> lines = new ArrayList<>();
    private final Progress.PlainLines plain = new Progress.PlainLines(lines::add, nanos::get);

    private void at(long seconds, String rendered) {
        nanos.set(TimeUnit.SECONDS.toNanos(seconds));
        plain.accept(rendered);
    }

    @Test
    void plainLines_ofAShortStep_printNothing() {
        at(0, "check 0%");
        at(1, "check 100%");
        plain.close();

        assertThat(lines).isEmpty();
    }

    @Test
    void plainLines_ofALongStep_printAfterTheQuietStart_thenEveryInterval_andTheLastOnClose() {
        at(1, "check 10%");
        at(2, "check 20%");
        at(5, "check 30%");
        at(12, "check 60%");
        at(13, "check 70%");
        plain.close();

        assertThat(lines).containsExactly("check 20%", "check 60%", "check 70%");
    }

    @Test
    void start_inPlainMode_ofAQuickStep_printsNothing() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (Progress progress = Progress.start("test", 10, "events", Progress.Mode.PLAIN,
                new PrintStream(err, true, StandardCharsets.UTF_8))) {
            progress.stepTo(10);
        }

        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void start_inPlainMode_ofALongStep_printsTheFiguresInWords() throws Exception {
        List<String> printed = new ArrayList<>();
        Progress.PlainLines lines = new Progress.PlainLines(printed::add, () -> 0);
        // The renderer alone: a plain line names the task, the count of the total, the rate, elapsed and left.
        var figures = new Progress.Figures("events");
        try (var bar = new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("check").setInitialMax(4000)
                .setRenderer(figures).setConsumer(lines).build()) {
            bar.stepTo(500);
            figures.render(stateOf(bar), 200); // the first count seen: time left is measured from here
            Thread.sleep(1_100);
            bar.stepTo(1000);
            String line = figures.render(stateOf(bar), 200);
            assertThat(line).matches("check: 1,000 of 4,000 events \\(25%\\), [0-9,]+ events/s, [0-9]+ s elapsed, about "
                    + "[0-9]+ s left");
        }
    }

    @Test
    void figures_whileTheFirstStepsStand_giveNoEstimateOfTheTimeLeft() throws Exception {
        // A check that spent its first seconds starting Python on event 1 of 65 must not promise minutes more.
        var figures = new Progress.Figures("events");
        try (var bar = new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("check").setInitialMax(65)
                .setRenderer(figures).setConsumer(new Progress.PlainLines(line -> { }, () -> 0)).build()) {
            bar.stepTo(1);
            Thread.sleep(1_100);
            assertThat(figures.render(stateOf(bar), 200)).startsWith("check: 1 of 65 events (1%), ").doesNotContain("left");
            Thread.sleep(1_100);
            assertThat(figures.render(stateOf(bar), 200)).startsWith("check: 1 of 65 events (1%), ").doesNotContain("left");
            bar.stepTo(33);
            assertThat(figures.render(stateOf(bar), 200)).matches("check: 33 of 65 events \\(50%\\), .* about [0-9]+ s left");
        }
    }

    @Test
    void figures_inSeconds_sayTheTimeLeftWithoutARate() throws Exception {
        // A deployment counts the seconds of its duration: "1 s/s" would say nothing.
        var figures = new Progress.Figures(Progress.SECONDS);
        try (var bar = new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("deploy").setInitialMax(20)
                .setRenderer(figures).setConsumer(new Progress.PlainLines(line -> { }, () -> 0)).build()) {
            bar.stepTo(1).setExtraMessage("workload running");
            figures.render(stateOf(bar), 200);
            Thread.sleep(1_100);
            bar.stepTo(2);
            assertThat(figures.render(stateOf(bar), 200))
                    .matches("deploy: 2 of 20 s \\(10%\\), [0-9]+ s elapsed, about [0-9]+ s left \\(workload running\\)");
        }
    }

    /** The library hands its state only to renderers; a throw-away renderer catches it. */
    private static me.tongfei.progressbar.ProgressState stateOf(me.tongfei.progressbar.ProgressBar bar) throws Exception {
        var field = me.tongfei.progressbar.ProgressBar.class.getDeclaredField("progress");
        field.setAccessible(true);
        return (me.tongfei.progressbar.ProgressState) field.get(bar);
    }

    @Test
    void start_inBarMode_showsCountTotalAndUnit() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (Progress progress = Progress.start("test", 10, "events", Progress.Mode.BAR,
                new PrintStream(err, true, StandardCharsets.UTF_8))) {
            progress.stepTo(7);
        }

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("test", "7/10 events");
    }

    @Test
    void polling_close_showsTheLastFiguresOnce_afterTheUpdatesStop() {
        AtomicLong counter = new AtomicLong();
        List<Long> shown = new ArrayList<>();
        Progress.Poller poller = Progress.polling("test", 10, "events", progress -> {
            synchronized (shown) {
                shown.add(counter.get());
            }
        });
        counter.set(7);
        poller.close();
        int afterClose;
        synchronized (shown) {
            afterClose = shown.size();
            assertThat(shown).last().isEqualTo(7L);
        }
        counter.set(9);
        synchronized (shown) {
            assertThat(shown).hasSize(afterClose).doesNotContain(9L);
        }
    }
}
