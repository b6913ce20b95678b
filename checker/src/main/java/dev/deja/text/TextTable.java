package dev.deja.text;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A table printed as text, the one table printer of every command: columns padded to their widest cell, two spaces
 * apart, numbers right-aligned, no trailing spaces; or as a Markdown table. A row may carry note lines, printed
 * indented under it (a finding's message).
 *
 * <p>A column is right-aligned when every cell in it is a {@link Number}, or when {@link #align} says so.
 * Not thread-safe; build it, then render it.
 */
public final class TextTable {
    /** How a column's cells are aligned. */
    public enum Alignment { LEFT, RIGHT, AUTOMATIC }

    private final List<String> headers;
    private final Alignment[] alignments;
    private final List<Object[]> rows = new ArrayList<>();
    private final List<List<String>> notes = new ArrayList<>();

    private TextTable(List<String> headers) {
        this.headers = List.copyOf(headers);
        this.alignments = new Alignment[headers.size()];
        Arrays.fill(alignments, Alignment.AUTOMATIC);
    }

    /** A table with these column headers. */
    public static TextTable withColumns(String... headers) {
        return new TextTable(List.of(headers));
    }

    /** A table with these column headers. */
    public static TextTable withColumns(List<String> headers) {
        return new TextTable(headers);
    }

    /** Fixes the alignment of column {@code column} (from 0). */
    public TextTable align(int column, Alignment alignment) {
        alignments[column] = Objects.requireNonNull(alignment);
        return this;
    }

    /** Adds a row; {@code null} cells print empty. */
    public TextTable row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of " + headers.size()
                    + " columns");
        }
        rows.add(cells.clone());
        notes.add(new ArrayList<>());
        return this;
    }

    /** Adds a row; {@code null} cells print empty. */
    public TextTable row(List<?> cells) {
        return row(cells.toArray());
    }

    /** Adds a line printed indented under the last row. */
    public TextTable note(String line) {
        if (rows.isEmpty()) {
            throw new IllegalStateException("a note needs a row to go under");
        }
        notes.getLast().add(line);
        return this;
    }

    /** How many rows were added. */
    public int rowCount() {
        return rows.size();
    }

    /** The table as text lines ending in a newline: the header, then the rows with their notes. */
    public String render() {
        int[] widths = widths();
        boolean[] right = rightAligned();
        StringBuilder out = new StringBuilder();
        appendPlain(out, headers.toArray(), widths, new boolean[headers.size()]);
        for (int r = 0; r < rows.size(); r++) {
            appendPlain(out, rows.get(r), widths, right);
            for (String note : notes.get(r)) {
                out.append("    ").append(note).append('\n');
            }
        }
        return out.toString();
    }

    /** The table in Markdown: a header row, the alignment row, then the rows (notes are left out). */
    public String renderMarkdown() {
        int[] widths = widths();
        boolean[] right = rightAligned();
        StringBuilder out = new StringBuilder();
        appendMarkdown(out, headers.toArray(), widths, right);
        out.append('|');
        for (int i = 0; i < widths.length; i++) {
            out.append(right[i] ? "-".repeat(widths[i] + 1) + ":" : "-".repeat(widths[i] + 2)).append('|');
        }
        out.append('\n');
        for (Object[] row : rows) {
            appendMarkdown(out, row, widths, right);
        }
        return out.toString();
    }

    private static void appendPlain(StringBuilder out, Object[] cells, int[] widths, boolean[] right) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            String text = text(cells[i]);
            boolean last = i == cells.length - 1;
            if (right[i]) {
                line.append(" ".repeat(widths[i] - text.length())).append(text);
            } else {
                line.append(text).append(last ? "" : " ".repeat(widths[i] - text.length()));
            }
            if (!last) {
                line.append("  ");
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    private static void appendMarkdown(StringBuilder out, Object[] cells, int[] widths, boolean[] right) {
        out.append('|');
        for (int i = 0; i < cells.length; i++) {
            String text = text(cells[i]);
            String padding = " ".repeat(widths[i] - text.length());
            out.append(' ').append(right[i] ? padding + text : text + padding).append(" |");
        }
        out.append('\n');
    }

    private int[] widths() {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
        }
        for (Object[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], text(row[i]).length());
            }
        }
        return widths;
    }

    private boolean[] rightAligned() {
        boolean[] right = new boolean[headers.size()];
        for (int i = 0; i < right.length; i++) {
            right[i] = switch (alignments[i]) {
                case LEFT -> false;
                case RIGHT -> true;
                case AUTOMATIC -> {
                    boolean numbers = !rows.isEmpty();
                    for (Object[] row : rows) {
                        numbers &= row[i] instanceof Number;
                    }
                    yield numbers;
                }
            };
        }
        return right;
    }

    private static String text(Object cell) {
        return cell == null ? "" : cell.toString();
    }
}
