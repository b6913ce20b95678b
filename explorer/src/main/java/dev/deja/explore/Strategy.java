package dev.deja.explore;

import java.util.Locale;

/** How the explorer chooses the paths it runs. */
public enum Strategy {
    /** Random walks, optionally weighted by kind of event (MaceMC 3.1). */
    RANDOM,
    /** Iterative-deepening depth-first search over choice points, each path finished by a random walk (MaceMC 4.1). */
    DFS,
    /** Dynamic partial-order reduction with backtrack and sleep sets (Flanagan and Godefroid; MODIST 3.6). */
    DPOR,
    /** Probabilistic concurrency testing with a bug depth (Burckhardt et al., ASPLOS 2010). */
    PCT,
    /** Partial-order sampling (Yuan et al., CAV 2018). */
    POS;

    /** The name on the command line, e.g. {@code dpor}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether paths are independent draws (split among workers by path number) rather than a search tree. */
    public boolean randomized() {
        return this == RANDOM || this == PCT || this == POS;
    }
}
