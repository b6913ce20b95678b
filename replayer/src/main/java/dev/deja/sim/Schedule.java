package dev.deja.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A simulated run as the answers its {@link ChoiceSource} gave, in order: with the same settings, the answers
 * make the same run again, byte for byte. The explorer keeps paths as schedules and writes a violating path's
 * schedule next to its trace; {@code deja simulate --schedule FILE} runs it again.
 *
 * <p>The file is text, one answer a line, after a versioned header:
 * <pre>
 * deja-schedule 1
 * window-ms 10
 * crash-points no
 * isolation-points no
 * isolation-ms 1000
 * steps 412
 * stop-after-steps yes
 * pick 2 of 5 deliver n1-&gt;n3 Accept
 * chance yes drop n1-&gt;n2
 * between 7 delay n1-&gt;n2
 * bits -8230719164553473523 random n3
 * </pre>
 * Text after the value of an answer is a comment for the reader; lines starting with {@code #} are ignored.
 *
 * @param exploration    the choice points the run asked (window, crash and partition points)
 * @param steps          how many steps the run took
 * @param stopAfterSteps whether the run was ended after {@code steps} steps by its observer (not by its settings)
 * @param answers        every answer, in order
 */
public record Schedule(Simulator.Exploration exploration, long steps, boolean stopAfterSteps, List<Answer> answers) {
    /** The version this class writes and reads. */
    public static final int VERSION = 1;

    public Schedule {
        Objects.requireNonNull(exploration, "exploration");
        answers = List.copyOf(answers);
    }

    /** What kind of question an answer answers. */
    public enum Kind { PICK, CHANCE, BETWEEN, BITS }

    /**
     * One answer.
     *
     * @param kind    the question's kind
     * @param value   the index picked, 1 or 0 for yes or no, the value in the range, or the bits
     * @param options for a pick, how many options there were; otherwise 0
     * @param comment what was asked, for the reader (may be empty)
     */
    public record Answer(Kind kind, long value, int options, String comment) {
        public Answer {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(comment, "comment");
        }
    }

    /** The file's text. */
    public String text() {
        StringBuilder out = new StringBuilder(64 + answers.size() * 24);
        out.append("deja-schedule ").append(VERSION).append('\n');
        out.append("window-ms ").append(exploration.windowMillis()).append('\n');
        out.append("crash-points ").append(exploration.crashPoints() ? "yes" : "no").append('\n');
        out.append("isolation-points ").append(exploration.isolationPoints() ? "yes" : "no").append('\n');
        out.append("isolation-ms ").append(exploration.isolationMillis()).append('\n');
        out.append("steps ").append(steps).append('\n');
        out.append("stop-after-steps ").append(stopAfterSteps ? "yes" : "no").append('\n');
        for (Answer answer : answers) {
            switch (answer.kind()) {
                case PICK -> out.append("pick ").append(answer.value()).append(" of ").append(answer.options());
                case CHANCE -> out.append("chance ").append(answer.value() != 0 ? "yes" : "no");
                case BETWEEN -> out.append("between ").append(answer.value());
                case BITS -> out.append("bits ").append(answer.value());
            }
            if (!answer.comment().isEmpty()) {
                out.append(' ').append(answer.comment());
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Writes {@link #text()} to {@code file}. */
    public void write(Path file) {
        try {
            Files.writeString(file, text(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the schedule " + file + ": " + e.getMessage(), e);
        }
    }

    /** Reads a schedule file; a malformed line is refused naming the file, the line and what was expected. */
    public static Schedule read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the schedule " + file + ": " + e.getMessage(), e);
        }
        return parse(lines, file.toString());
    }

    /** Parses the lines of a schedule named {@code name} in messages. */
    public static Schedule parse(List<String> lines, String name) {
        int at = 0;
        while (at < lines.size() && (lines.get(at).isBlank() || lines.get(at).startsWith("#"))) {
            at++;
        }
        if (at >= lines.size() || !lines.get(at).strip().equals("deja-schedule " + VERSION)) {
            throw new IllegalArgumentException(name + ": line " + (at + 1) + ": expected 'deja-schedule " + VERSION
                    + "' (a schedule written by deja explore)");
        }
        at++;
        long window = 0;
        boolean crashPoints = false;
        boolean isolationPoints = false;
        long isolationMillis = 1;
        long steps = 0;
        boolean stop = false;
        List<Answer> answers = new ArrayList<>();
        for (int i = at; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] words = line.split(" ", 4);
            String where = name + ": line " + (i + 1) + ": ";
            try {
                switch (words[0]) {
                    case "window-ms" -> window = Long.parseLong(words[1]);
                    case "crash-points" -> crashPoints = yes(words[1], where);
                    case "isolation-points" -> isolationPoints = yes(words[1], where);
                    case "isolation-ms" -> isolationMillis = Long.parseLong(words[1]);
                    case "steps" -> steps = Long.parseLong(words[1]);
                    case "stop-after-steps" -> stop = yes(words[1], where);
                    case "pick" -> {
                        String[] rest = line.split(" ", 5);
                        if (rest.length < 4 || !rest[2].equals("of")) {
                            throw new IllegalArgumentException(where + "expected 'pick INDEX of OPTIONS', was '" + line + "'");
                        }
                        answers.add(new Answer(Kind.PICK, Long.parseLong(rest[1]), Integer.parseInt(rest[3]),
                                rest.length > 4 ? rest[4] : ""));
                    }
                    case "chance" -> answers.add(new Answer(Kind.CHANCE, yes(words[1], where) ? 1 : 0, 0, tail(line, 2)));
                    case "between" -> answers.add(new Answer(Kind.BETWEEN, Long.parseLong(words[1]), 0, tail(line, 2)));
                    case "bits" -> answers.add(new Answer(Kind.BITS, Long.parseLong(words[1]), 0, tail(line, 2)));
                    default -> throw new IllegalArgumentException(where + "expected a header line or pick, chance, "
                            + "between or bits, was '" + line + "'");
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IllegalArgumentException(where + "malformed line '" + line + "'");
            }
        }
        return new Schedule(new Simulator.Exploration(window, crashPoints, isolationPoints, isolationMillis), steps, stop,
                answers);
    }

    private static String tail(String line, int words) {
        String[] parts = line.split(" ", words + 1);
        return parts.length > words ? parts[words] : "";
    }

    private static boolean yes(String word, String where) {
        return switch (word) {
            case "yes" -> true;
            case "no" -> false;
            default -> throw new IllegalArgumentException(where + "expected yes or no, was '" + word + "'");
        };
    }

    /**
     * A source that gives these answers in order and refuses (naming the answer's line) a question of another kind,
     * a pick among another number of options, or a question past the last answer.
     */
    public ChoiceSource replay(String name) {
        return new ChoiceSource() {
            private int next;

            private Answer take(Kind kind, ChoicePoint point, int options) {
                if (next >= answers.size()) {
                    throw new IllegalArgumentException(name + ": the run asks " + describe(point) + " after the schedule's "
                            + answers.size() + " answers (are the settings those of the explored run?)");
                }
                Answer answer = answers.get(next);
                if (answer.kind() != kind || (kind == Kind.PICK && answer.options() != options)) {
                    throw new IllegalArgumentException(name + ": answer " + (next + 1) + " is a " + answer.kind()
                            .name().toLowerCase() + (answer.kind() == Kind.PICK ? " of " + answer.options() : "")
                            + ", but the run asks " + describe(point) + (kind == Kind.PICK ? " of " + options : "")
                            + " (are the settings those of the explored run?)");
                }
                next++;
                return answer;
            }

            @Override
            public int pick(ChoicePoint point, int options) {
                return (int) take(Kind.PICK, point, options).value();
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                return take(Kind.CHANCE, point, 0).value() != 0;
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                return take(Kind.BETWEEN, point, 0).value();
            }

            @Override
            public long bits(ChoicePoint point) {
                return take(Kind.BITS, point, 0).value();
            }
        };
    }

    /**
     * A source that gives these answers first (refusing a question that does not fit, as {@link #replay} does) and
     * then asks {@code then}: a walk from this schedule's prefix, as the liveness search's random walks from a
     * prefix of a path need.
     */
    public ChoiceSource replayThen(String name, ChoiceSource then) {
        ChoiceSource prefix = replay(name);
        int[] given = {0};
        return new ChoiceSource() {
            private boolean inPrefix() {
                return given[0] < answers.size();
            }

            @Override
            public int pick(ChoicePoint point, int options) {
                return inPrefix() && ++given[0] > 0 ? prefix.pick(point, options) : then.pick(point, options);
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                return inPrefix() && ++given[0] > 0 ? prefix.chance(point, probability) : then.chance(point, probability);
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                return inPrefix() && ++given[0] > 0 ? prefix.between(point, min, max) : then.between(point, min, max);
            }

            @Override
            public long bits(ChoicePoint point) {
                return inPrefix() && ++given[0] > 0 ? prefix.bits(point) : then.bits(point);
            }
        };
    }

    /**
     * An observer that ends the run after {@link #steps} steps (0: at the end of the boot) when the schedule says so,
     * else {@code next}.
     */
    public StepObserver stopper(StepObserver next) {
        if (!stopAfterSteps) {
            return next;
        }
        return new StepObserver() {
            @Override
            public boolean afterStep(SimulatedStep step, View view) {
                return next.afterStep(step, view) && step.step() + 1 < steps;
            }

            /** A schedule of 0 steps ends at the end of the boot (a path whose violation was there). */
            @Override
            public boolean booted(List<SimulatedStep> starts, View view) {
                return next.booted(starts, view) && steps > 0;
            }
        };
    }

    /** A question's kind in words, for messages. */
    static String describe(ChoicePoint point) {
        return switch (point) {
            case ChoicePoint.NextEvent n -> "which event runs next (step " + n.step() + ")";
            case ChoicePoint.Drop d -> "whether a message " + d.from() + "->" + d.to() + " is lost";
            case ChoicePoint.Duplicate d -> "whether a message " + d.from() + "->" + d.to() + " is duplicated";
            case ChoicePoint.Delay d -> "the delay of a message " + d.from() + "->" + d.to();
            case ChoicePoint.Crash c -> "whether a node crashes after step " + c.step();
            case ChoicePoint.CrashVictim c -> "which node crashes";
            case ChoicePoint.CrashAfter c -> "whether " + c.node() + " crashes after step " + c.step();
            case ChoicePoint.Isolate c -> "whether " + c.node() + " is cut off after step " + c.step();
            case ChoicePoint.RandomDraw r -> "a random draw of " + r.node();
            case ChoicePoint.ClockSkew c -> "the clock skew of " + c.node();
        };
    }

    /** The comment a recorded answer carries: what was asked and, for a pick, what was picked. */
    public static String comment(ChoicePoint point, long value) {
        return switch (point) {
            case ChoicePoint.NextEvent n -> n.events().get((int) value).describe();
            case ChoicePoint.Drop d -> "drop " + d.from() + "->" + d.to();
            case ChoicePoint.Duplicate d -> "duplicate " + d.from() + "->" + d.to();
            case ChoicePoint.Delay d -> "delay " + d.from() + "->" + d.to();
            case ChoicePoint.Crash c -> "crash after step " + c.step();
            case ChoicePoint.CrashVictim c -> "crash victim";
            case ChoicePoint.CrashAfter c -> "crash " + c.node() + " after step " + c.step();
            case ChoicePoint.Isolate c -> "isolate " + c.node() + " after step " + c.step();
            case ChoicePoint.RandomDraw r -> "random " + r.node();
            case ChoicePoint.ClockSkew c -> "clock skew " + c.node();
        };
    }
}
