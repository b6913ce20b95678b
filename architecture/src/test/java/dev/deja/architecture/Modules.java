package dev.deja.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The module map the rules enforce, declared once: the modules lowest first, each depending only on modules before
 * it. A new module is one more name in {@link #ORDER}, at its place.
 */
final class Modules {
    /** Lowest first: a module may use the modules before it and is used only by the modules after it. */
    static final List<String> ORDER = List.of("recorder", "replayer", "examples", "checker", "explorer", "junit",
            "viewer", "cli", "bench");

    /** The modules whose main code may use the examples; every other module above them uses them only in tests. */
    static final Set<String> EXAMPLE_USERS = Set.of("cli", "bench");

    // Where a module's main classes are: its classes directory in a build of the tree, or its jar.
    private static final Pattern CLASSES_DIRECTORY = Pattern.compile("/([a-z][a-z0-9-]*)/target/classes/");
    private static final Pattern JAR = Pattern.compile("/deja-([a-z][a-z0-9-]*)-[^/]*\\.jar!/");

    private Modules() {
    }

    /** The module a class was loaded from, or empty for a class outside the tree's modules (a library). */
    static Optional<String> of(JavaClass javaClass) {
        return javaClass.getBaseComponentType().getSource().flatMap(source -> of(source.getUri()));
    }

    static Optional<String> of(URI location) {
        String text = location.toString();
        for (Pattern pattern : List.of(CLASSES_DIRECTORY, JAR)) {
            Matcher matcher = pattern.matcher(text);
            if (matcher.find()) {
                return Optional.of(matcher.group(1));
            }
        }
        return Optional.empty();
    }

    /** The position of {@code module} in {@link #ORDER}, or -1 when it is not declared. */
    static int rank(String module) {
        return ORDER.indexOf(module);
    }

    static DescribedPredicate<JavaClass> in(String module) {
        return DescribedPredicate.describe("in module " + module, javaClass -> of(javaClass).equals(Optional.of(module)));
    }
}
