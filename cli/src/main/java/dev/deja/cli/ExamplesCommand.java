package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.Examples;
import dev.deja.text.TextTable;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;

/** Lists the built-in examples, their bugs with the command that shows each, and their node arguments. */
@Command(name = "examples", mixinStandardHelpOptions = true,
        description = "List the built-in example protocols, the bugs each can switch on with the command that shows "
                + "each bug, and the node arguments each takes.")
public final class ExamplesCommand implements Runnable {
    private static final String RANDTREE_FAULTS = " --drop 0.05 --delay 1ms..10ms --crash-rate 0.006 --restart-delay 300ms"
            + " --partition 'n1|n2,n3,n4,n5,n6@800ms..3500ms' --virtual-time 5s --until-limit --out t"
            + " && ./deja check t scripts/randtree.py";

    /** For every example's bug ("example/bug"), a command that shows it: a seed found to break the property. */
    static final Map<String, String> SHOWN_BY = Map.ofEntries(
            Map.entry("paxos/latest-response", "./deja simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3"
                    + " --delay 1ms..100ms --out t && ./deja check t scripts/paxos.py"),
            Map.entry("paxos/spec", "./deja simulate paxos --nodes 7 --bug spec --seed 3 --drop 0.3 --delay 1ms..100ms"
                    + " --out t && ./deja check t scripts/paxos.py"),
            Map.entry("chord/succ-succ-hash", "./deja simulate chord --bug succ-succ-hash --seed 0 --out t"
                    + " && ./deja check t scripts/chord.py"),
            Map.entry("chord/finger-lazy", "./deja simulate chord --bug finger-lazy --seed 0 --out t"
                    + " && ./deja check t scripts/chord.py"),
            Map.entry("chord/finger-boundary", "./deja simulate chord --bug finger-boundary --seed 0 --out t"
                    + " && ./deja check t scripts/chord.py"),
            Map.entry("lockserver/release-retry-livelock", "./deja simulate lockserver --bug release-retry-livelock --seed 3"
                    + " --virtual-time 8s --out t && ./deja check t scripts/lockserver.py"),
            Map.entry("store/balance-race", "./deja simulate store --bug balance-race --seed 4 --out t"
                    + " && ./deja check t scripts/store.py"),
            Map.entry("store/transient-failure", "./deja simulate store --bug transient-failure --seed 7 --crash-rate 0.0005"
                    + " --restart-delay 1000ms --out t && ./deja check t scripts/store.py"),
            Map.entry("randtree/sibling-not-removed", "./deja simulate randtree --bug sibling-not-removed --seed 5"
                    + RANDTREE_FAULTS),
            Map.entry("randtree/stale-child-on-new-root", "./deja simulate randtree --bug stale-child-on-new-root --seed 24"
                    + RANDTREE_FAULTS),
            Map.entry("randtree/root-keeps-siblings", "./deja simulate randtree --bug root-keeps-siblings --seed 1"
                    + RANDTREE_FAULTS),
            Map.entry("randtree/no-recovery-timer", "./deja simulate randtree --bug no-recovery-timer --seed 1"
                    + RANDTREE_FAULTS));

    @Override
    public void run() {
        // One table, so that a long bug name widens its column instead of running into the description.
        TextTable table = TextTable.withColumns("EXAMPLE", "OPTION", "WHAT");
        for (Example example : Examples.all()) {
            table.row(example.name(), "", example.description() + " (default " + example.defaultNodes() + " nodes)");
            example.bugs().forEach((bug, description) -> {
                table.row("", "--bug " + bug, description);
                shownBy(example, bug).ifPresent(command -> table.note("shown by: " + command));
            });
            example.arguments().forEach((argument, description) -> table.row("", "--arg " + argument, description));
        }
        System.out.print(table.render());
    }

    /** The command that shows {@code bug} of {@code example}, if one is known. */
    static Optional<String> shownBy(Example example, String bug) {
        return Optional.ofNullable(SHOWN_BY.get(example.name() + "/" + bug));
    }
}
