package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class PythonEngineIT {
    @Test
    void get_leavesTheGraalCompilerToC1() throws Exception {
        assertThat(PythonEngine.get()).isNotNull();

        String directives = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        int graal = directives.indexOf("matching: jdk/graal/compiler/*.*");
        assertThat(graal).as("the directives in force:%n%s", directives).isNotNegative();
        String rest = directives.substring(graal);
        String c2 = rest.substring(rest.indexOf("c2 directives:"));
        assertThat(c2.lines().filter(line -> line.contains("Exclude:")).findFirst().orElseThrow())
                .contains("Exclude:true");
        String c1 = rest.substring(rest.indexOf("c1 directives:"), rest.indexOf("c2 directives:"));
        assertThat(c1.lines().filter(line -> line.contains("Exclude:")).findFirst().orElseThrow())
                .contains("Exclude:false");
    }
}
