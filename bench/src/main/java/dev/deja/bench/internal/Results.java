package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.Summary;
import java.util.List;
import java.util.Map;

/** How figures are written into the results tree. */
final class Results {
    private Results() {
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** {@code {"median": …, "min": …, "max": …, "samples": […]}}, rounded to four significant digits. */
    static ObjectNode summary(Summary summary) {
        ObjectNode node = object();
        fill(node, summary);
        return node;
    }

    /** Writes the summary's fields into {@code node}. */
    static ObjectNode fill(ObjectNode node, Summary summary) {
        node.put("median", round(summary.median()));
        node.put("min", round(summary.min()));
        node.put("max", round(summary.max()));
        var samples = node.putArray("samples");
        summary.samples().forEach(s -> samples.add(round(s)));
        return node;
    }

    /** Rounds to four significant digits (whole numbers from 10,000 on): more would be noise. */
    static double round(double value) {
        if (value == 0 || !Double.isFinite(value)) {
            return value;
        }
        if (Math.abs(value) >= 10_000) {
            return Math.rint(value);
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(4)).doubleValue();
    }

    /**
     * The headline of a per-example figure: the worst example's summary (largest median when {@code largestIsWorst},
     * else smallest), which example that is, and every example's figures.
     */
    static ObjectNode headline(Map<String, ObjectNode> perExample, boolean largestIsWorst, String unit,
                               String goal, List<String> skipped) {
        String worst = null;
        for (var entry : perExample.entrySet()) {
            double median = entry.getValue().get("median").asDouble();
            if (worst == null || (largestIsWorst ? median > perExample.get(worst).get("median").asDouble()
                    : median < perExample.get(worst).get("median").asDouble())) {
                worst = entry.getKey();
            }
        }
        ObjectNode node = Results.object();
        ObjectNode chosen = perExample.get(worst);
        node.set("median", chosen.get("median"));
        node.set("min", chosen.get("min"));
        node.set("max", chosen.get("max"));
        node.set("samples", chosen.get("samples"));
        node.put("example", worst);
        node.put("unit", unit);
        if (goal != null) {
            node.put("goal", goal);
        }
        ObjectNode all = node.putObject("per_example");
        perExample.forEach(all::set);
        if (!skipped.isEmpty()) {
            node.put("skipped", String.join("; ", skipped));
        }
        return node;
    }
}
