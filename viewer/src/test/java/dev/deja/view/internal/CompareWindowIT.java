package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.trace.Trace;
import dev.deja.view.ComparisonSettings;
import dev.deja.view.TraceComparison;
import dev.deja.view.TraceComparison.Side;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The comparison window on two short RandTree runs that share their first choices (see {@link SharedPrefixRuns}):
 * it opens at the first difference, moves both runs together, and shows every node's state in both; a node
 * whose log up to the step is common to both runs has the same state in both.
 */
class CompareWindowIT {
    private static final long SEED = 1;
    private static final long PREFIX = 600;
    private static final long THEN = 4;
    private static final long VIRTUAL_MILLIS = 2_500;

    @TempDir
    static Path temporary;
    private static TraceComparison comparison;
    private static ComparisonSettings settings;

    private final FxRobot robot = new FxRobot();
    private CompareWindow window;

    @BeforeAll
    static void simulate() {
        Path a = temporary.resolve("a");
        Path b = temporary.resolve("b");
        SharedPrefixRuns.run(a, SEED, PREFIX, SEED, VIRTUAL_MILLIS);
        SharedPrefixRuns.run(b, SEED, PREFIX, THEN, VIRTUAL_MILLIS);
        Trace traceA = Trace.open(a);
        Trace traceB = Trace.open(b);
        comparison = TraceComparison.of(TraceModel.open(traceA), TraceModel.open(traceB));
        settings = new ComparisonSettings(traceA, traceB, OptionalInt.empty(), 0, CompareWindowIT.class.getClassLoader());
        FxToolkit.start(FxToolkit.Mode.HEADLESS);
        System.out.printf("CompareWindowIT: RandTree runs of %d and %d entries, common prefix %d (seed %d, the choices"
                        + " after the first %d from seed %d, %d ms)%n", comparison.a().size(), comparison.b().size(),
                comparison.commonSize(), SEED, PREFIX, THEN, VIRTUAL_MILLIS);
    }

    @AfterEach
    void close() {
        if (window != null) {
            FxToolkit.call(() -> {
                window.stage().close();
                return null;
            });
        }
    }

    private static <T> T on(Supplier<T> read) {
        return FxToolkit.call(read::get);
    }

    private void waitForStates(int positionA) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> on(() -> window.shownStates() != null
                    && window.shownStates().positionA() == positionA));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting for the states at A " + positionA + ": "
                    + on(window::stateStatusText));
        }
    }

    /** Whether every entry of {@code node}'s log up to the cut is in the common prefix. */
    private static boolean commonUpTo(NodeId node, int entries) {
        return entries <= comparison.commonCount(node);
    }

    @Test
    void open_atTheFirstDifference_selectsItInBothRunsAndDiffsEveryNode() throws Exception {
        int first = comparison.firstDifference(Side.A).orElseThrow();
        window = FxToolkit.call(() -> CompareWindow.show(comparison, settings));
        waitForStates(first);

        assertThat(on(() -> window.selected(Side.A))).isEqualTo(first);
        assertThat(on(() -> window.selected(Side.B))).isEqualTo(comparison.aligned(Side.A, first));
        ComparedStates states = on(window::shownStates);
        int[] cut = comparison.cut(Side.A, first);
        for (ComparedStates.NodeStates node : states.nodes()) {
            int lane = comparison.a().lane(node.node());
            if (commonUpTo(node.node(), cut[lane])) {
                assertThat(node.differs()).as("%s replayed the same entries in both runs", node.node()).isFalse();
            }
        }
        assertThat(on(window::stateLines)).hasSize(states.nodes().stream().mapToInt(n -> size(n.diff())).sum());
        assertThat(on(window::stateStatusText)).contains("each node after its entries up to A position " + first);
        assertThat(on(window::summaryText)).contains("common prefix: " + comparison.commonSize() + " entries",
                "first difference: A position " + first + ",");
    }

    @Test
    void stepping_onTheCommonPrefix_movesBothRunsToTheSameEntry() throws Exception {
        window = FxToolkit.call(() -> CompareWindow.show(comparison, settings));
        int common = comparison.common(Side.A).previousSetBit(comparison.firstDifference(Side.A).orElseThrow());
        FxToolkit.call(() -> {
            window.select(Side.A, common);
            return null;
        });
        waitForStates(common);
        assertThat(on(() -> window.selected(Side.B))).isEqualTo(comparison.counterpart(Side.A, common));
        assertThat(on(window::shownStates).differingNodes()).as("before the first difference").isZero();

        robot.clickOn("#compare-first-difference");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(() -> window.selected(Side.A))).isEqualTo(comparison.firstDifference(Side.A).orElseThrow());
    }

    private static int size(ObjectTree.Diff diff) {
        int count = 1;
        for (ObjectTree.Diff child : diff.children()) {
            count += size(child);
        }
        return count;
    }
}
