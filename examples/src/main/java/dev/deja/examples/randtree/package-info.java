/**
 * RandTree, the random degree-bounded overlay tree of Mace, as checked by MaceMC (NSDI 2007) and CrystalBall
 * (NSDI 2009): nodes with a root, a parent, children and siblings, joins forwarded down the tree, a recovery timer
 * that detects lost parents and merges trees, and the four inconsistencies CrystalBall describes as switchable
 * bugs ({@code sibling-not-removed}, {@code stale-child-on-new-root}, {@code root-keeps-siblings},
 * {@code no-recovery-timer}), and MaceMC's scenario in which only the bootstrap knows the members of a second tree
 * ({@code topology=two-trees}).
 */
package dev.deja.examples.randtree;
