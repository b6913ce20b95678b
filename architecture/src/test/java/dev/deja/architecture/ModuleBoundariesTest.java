package dev.deja.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries, checked on every module's main classes (tests may reach further): modules depend one way
 * ({@link Modules#ORDER}), no module uses another's {@code internal} packages, the examples are used by the
 * command line and the benchmarks only, and no package is split across modules.
 */
class ModuleBoundariesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.deja");
    }

    @Test
    void everyModule_hasItsMainClassesImported() {
        // Without this, a change in where the build puts classes would make every other rule pass on nothing.
        Set<String> found = new TreeSet<>();
        classes.forEach(javaClass -> Modules.of(javaClass).ifPresent(found::add));
        assertThat(found).containsAll(Modules.ORDER);
    }

    @Test
    void everyClass_belongsToADeclaredModule() {
        classes().should(new ArchCondition<JavaClass>("belong to a module declared in Modules.ORDER " + Modules.ORDER) {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                Optional<String> module = Modules.of(javaClass);
                if (module.isEmpty() || Modules.rank(module.get()) < 0) {
                    events.add(SimpleConditionEvent.violated(javaClass, javaClass.getName() + " comes from "
                            + module.map(m -> "module " + m + ", which is not declared")
                            .orElse(javaClass.getSource().map(s -> s.getUri().toString()).orElse("nowhere known"))));
                }
            }
        }).check(classes);
    }

    @Test
    void modules_dependOnlyOnModulesBelowThem() {
        Architectures.LayeredArchitecture layers = Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers();
        for (String module : Modules.ORDER) {
            layers = layers.layer(module).definedBy(Modules.in(module));
        }
        for (int rank = 0; rank < Modules.ORDER.size(); rank++) {
            List<String> above = Modules.ORDER.subList(rank + 1, Modules.ORDER.size());
            layers = above.isEmpty() ? layers.whereLayer(Modules.ORDER.get(rank)).mayNotBeAccessedByAnyLayer()
                    : layers.whereLayer(Modules.ORDER.get(rank)).mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
        }
        layers.check(classes);
    }

    @Test
    void noModule_usesAnotherModulesInternalPackages() {
        noClasses().should(dependOn("classes of another module's internal package", (origin, target) ->
                target.getPackageName().contains(".internal") && Modules.of(target).isPresent()
                        && !Modules.of(target).equals(Modules.of(origin)))).check(classes);
    }

    @Test
    void examples_areUsedOnlyByTheCommandLineAndTheBenchmarks() {
        int examples = Modules.rank("examples");
        noClasses().that(Modules.in("examples").negate()).should(dependOn("the examples (outside tests) though not in "
                + Modules.EXAMPLE_USERS, (origin, target) -> Modules.of(target).equals(Optional.of("examples"))
                && Modules.of(origin).filter(module -> Modules.rank(module) > examples
                && !Modules.EXAMPLE_USERS.contains(module)).isPresent())).check(classes);
    }

    @Test
    void noPackage_isSplitAcrossModules() {
        Map<String, Set<String>> modulesOfPackage = new HashMap<>();
        classes.forEach(javaClass -> Modules.of(javaClass).ifPresent(module ->
                modulesOfPackage.computeIfAbsent(javaClass.getPackageName(), p -> new TreeSet<>()).add(module)));
        classes().should(new ArchCondition<JavaClass>("reside in a package that belongs to one module") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                Set<String> modules = modulesOfPackage.getOrDefault(javaClass.getPackageName(), Set.of());
                if (modules.size() > 1) {
                    events.add(SimpleConditionEvent.violated(javaClass, javaClass.getName() + " in module "
                            + Modules.of(javaClass).orElse("?") + ": package " + javaClass.getPackageName()
                            + " is split across the modules " + modules));
                }
            }
        }).check(classes);
    }

    /** Violated by every dependency of a class on a class that {@code forbidden} matches, naming the dependency. */
    private static ArchCondition<JavaClass> dependOn(String what, BiFunction<JavaClass, JavaClass, Boolean> forbidden) {
        return new ArchCondition<>("depend on " + what) {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                for (Dependency dependency : javaClass.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    if (forbidden.apply(javaClass, target)) {
                        events.add(SimpleConditionEvent.satisfied(dependency, dependency.getDescription()));
                    }
                }
            }
        };
    }
}
