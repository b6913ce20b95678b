package dev.deja.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TextTableTest {
    @Test
    void render_padsColumns_rightAlignsNumbers_andStripsTrailingSpaces() {
        TextTable table = TextTable.withColumns("POSITION", "NODE", "PREDICATE")
                .row(3231L, "n1", "agreement")
                .row(7L, "n12", "x");

        assertThat(table.render()).isEqualTo("""
                POSITION  NODE  PREDICATE
                    3231  n1    agreement
                       7  n12   x
                """);
    }

    @Test
    void render_printsNotesIndentedUnderTheirRow() {
        TextTable table = TextTable.withColumns("A", "B").row("x", 1).note("first line").note("second line").row("y", 22);

        assertThat(table.render()).isEqualTo("""
                A  B
                x   1
                    first line
                    second line
                y  22
                """);
    }

    @Test
    void render_ofAColumnMixingNumbersAndText_alignsLeft() {
        assertThat(TextTable.withColumns("V").row(1).row("NULL").render()).isEqualTo("V\n1\nNULL\n");
    }

    @Test
    void renderMarkdown_marksRightAlignedColumns() {
        TextTable table = TextTable.withColumns("figure", "median").align(1, TextTable.Alignment.RIGHT)
                .row("replay entries/s", "1.2 M").row("x", "3");

        assertThat(table.renderMarkdown()).isEqualTo("""
                | figure           | median |
                |------------------|-------:|
                | replay entries/s |  1.2 M |
                | x                |      3 |
                """);
    }

    @Test
    void row_withTheWrongNumberOfCells_isRefused() {
        assertThatThrownBy(() -> TextTable.withColumns("A", "B").row("only one"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a row of 1 cells in a table of 2 columns");
    }
}
