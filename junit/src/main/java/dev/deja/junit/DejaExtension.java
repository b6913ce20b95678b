package dev.deja.junit;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.recorder.QuietLogging;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.FaultModel;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * Runs a {@link DejaTest}: one invocation per seed, each of which simulates the cluster file into a trace and
 * checks the predicate script on it before the test method runs. A violation fails that seed's test with the
 * predicate, the position, the trace's path and the command that reproduces it.
 */
public final class DejaExtension implements TestTemplateInvocationContextProvider {
    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod().map(m -> m.isAnnotationPresent(DejaTest.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        QuietLogging.apply(); // before Chronicle Queue first logs
        Method method = context.getRequiredTestMethod();
        DejaTest test = method.getAnnotation(DejaTest.class);
        if (test.seeds() < 1) {
            throw new IllegalArgumentException("@DejaTest on " + method.getName() + ": seeds must be at least 1");
        }
        Path base = Path.of("target", "deja", context.getRequiredTestClass().getSimpleName(), method.getName());
        return LongStream.range(test.firstSeed(), test.firstSeed() + test.seeds())
                .mapToObj(seed -> new SeedInvocation(test, seed, base.resolve("seed-" + seed)));
    }

    /** One seed: its display name, its run before the method, and the {@link DejaRun} parameter. */
    private record SeedInvocation(DejaTest test, long seed, Path trace) implements TestTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) {
            return "seed " + seed;
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            DejaRun[] run = new DejaRun[1];
            BeforeTestExecutionCallback simulateAndCheck = context -> run[0] = simulateAndCheck(test, seed, trace);
            ParameterResolver resolver = new ParameterResolver() {
                @Override
                public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
                    return parameter.getParameter().getType() == DejaRun.class;
                }

                @Override
                public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
                    if (run[0] == null) {
                        run[0] = simulateAndCheck(test, seed, trace);
                    }
                    return run[0];
                }
            };
            return List.of(resolver, (BeforeTestExecutionCallback) context -> {
                if (run[0] == null) {
                    simulateAndCheck.beforeTestExecution(context);
                }
            });
        }
    }

    /** Simulates one seed and checks it; throws an {@link AssertionError} naming the first counted finding. */
    static DejaRun simulateAndCheck(DejaTest test, long seed, Path trace) {
        Path clusterFile = Path.of(test.cluster());
        Path script = Path.of(test.script());
        if (!Files.isRegularFile(script)) {
            throw new IllegalArgumentException("@DejaTest: script " + script.toAbsolutePath() + " does not exist");
        }
        ClusterSpec cluster = ClusterSpec.read(clusterFile);
        SimulationSettings settings = settings(test, cluster, seed);
        deleteRecursively(trace);
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        String command = command(test, settings, trace);
        SimulationResult result = Simulator.run(settings, trace, Simulator.Options.of(settings).withClassLoader(loader)
                .withCommand(command));
        CheckReport report;
        try (InMemoryStateHistory history = new InMemoryStateHistory()) {
            report = Checker.check(trace, script, Checker.Options.defaults().withClassLoader(loader)
                    .withScriptOutput(OutputStream.nullOutputStream()), history);
        }
        Optional<Violation> first = report.violations().stream().filter(Violation::counted).findFirst();
        if (first.isPresent()) {
            Violation violation = first.get();
            throw new AssertionError("predicate " + violation.predicate() + " " + violation.statusText() + " at position "
                    + violation.event().position() + " (node " + violation.event().node() + ", " + violation.event().type()
                    + ") of trace " + trace.toAbsolutePath() + " (" + report.counted() + " findings in all)\n"
                    + (violation.message().isEmpty() ? "" : violation.message().strip() + "\n")
                    + "reproduce with: " + command + "\n"
                    + "then: deja check " + trace + " " + script + " --classpath target/classes");
        }
        return new DejaRun(seed, trace, result, report, command);
    }

    private static SimulationSettings settings(DejaTest test, ClusterSpec cluster, long seed) {
        SimulationSettings.Builder builder = SimulationSettings.builder().seed(seed);
        cluster.nodes().forEach((id, member) -> builder.node(id, member.nodeClass(), member.args()));
        if (cluster.clients().size() > 1) {
            throw new IllegalArgumentException("@DejaTest: " + test.cluster() + " has more than one client; the "
                    + "simulation runs one workload client");
        }
        cluster.clients().forEach((id, member) -> builder.driver(id, member.nodeClass()));
        FaultModel file = cluster.faults();
        FaultModel.Builder faults = FaultModel.builder().dropProbability(file.dropProbability())
                .duplicateProbability(file.duplicateProbability()).crashRate(file.crashRate())
                .restartDelayMillis(file.restartDelayMillis()).clockSkewMillis(file.clockSkewMillis())
                .delayMillis(file.maxDelayMillis() == 0 ? 1 : file.minDelayMillis(),
                        file.maxDelayMillis() == 0 ? 10 : file.maxDelayMillis());
        file.partitions().forEach(faults::partition); // kill/restart times are for deployments
        if (test.drop() >= 0) {
            faults.dropProbability(test.drop());
        }
        if (test.duplicate() >= 0) {
            faults.duplicateProbability(test.duplicate());
        }
        if (test.crashRate() >= 0) {
            faults.crashRate(test.crashRate());
        }
        if (!test.delay().isBlank()) {
            long[] range = FaultModel.delayRange(test.delay(), "@DejaTest delay");
            faults.delayMillis(range[0], range[1]);
        }
        builder.faults(faults.build());
        builder.maxVirtualMillis(FaultModel.millis(test.virtualTime(), "@DejaTest virtualTime"));
        return builder.build();
    }

    /** The {@code deja simulate} command that writes the same trace. */
    private static String command(DejaTest test, SimulationSettings settings, Path trace) {
        StringBuilder command = new StringBuilder("deja simulate --cluster ").append(test.cluster())
                .append(" --classpath target/classes --seed ").append(settings.seed())
                .append(" --drop ").append(settings.dropProbability())
                .append(" --dup ").append(settings.duplicateProbability())
                .append(" --delay ").append(settings.minDelayMillis()).append("ms..").append(settings.maxDelayMillis()).append("ms");
        if (settings.crashRate() > 0) {
            command.append(" --crash-rate ").append(settings.crashRate()).append(" --restart-delay ")
                    .append(settings.restartDelayMillis()).append("ms");
        }
        command.append(" --virtual-time ").append(settings.maxVirtualMillis()).append("ms");
        settings.driver().ifPresent(d -> command.append(" --driver ").append(d.id().value()));
        return command.append(" --out ").append(trace).append(" --force").toString();
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace " + directory + ": " + e.getMessage(), e);
        }
    }

}
