package dev.deja.examples.randtree;

import dev.deja.examples.randtree.RandTreeNode.JoinState;
import dev.deja.examples.randtree.TreeMessage.Status;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The nodes' views of a RandTree taken together: the safety properties {@code scripts/randtree.py} checks,
 * computed in Java (for the workload client and as the tests' independent oracle), whether the views form one
 * consistent tree, and a one-line drawing of it.
 */
public final class TreeViews {
    private TreeViews() {
    }

    /** One node's view of the tree. */
    public record View(JoinState state, NodeId root, NodeId parent, SortedSet<NodeId> children,
                       SortedSet<NodeId> siblings, boolean recoveryTimerScheduled) {
        public View {
            Objects.requireNonNull(state, "state");
            children = new TreeSet<>(children);
            siblings = new TreeSet<>(siblings);
        }

        /** The view of a live node. */
        public static View of(RandTreeNode node) {
            return new View(node.state(), node.root(), node.parent(), node.children(), node.siblings(),
                    node.recoveryTimerScheduled());
        }

        /** The view a node reported to the client (which does not say whether its timer runs). */
        static View of(Status status) {
            return new View(status.state(), status.root(), status.parent(), new TreeSet<>(status.children()),
                    new TreeSet<>(status.siblings()), true);
        }

        boolean joined() {
            return state == JoinState.JOINED;
        }
    }

    /** The safety properties, named as the predicates of {@code scripts/randtree.py}. */
    public enum Property {
        CHILDREN_SIBLINGS_DISJOINT, ROOT_HAS_NO_SIBLINGS, ROOT_NOT_A_CHILD, NO_PARENT_LOOPS, RECOVERY_TIMER_SCHEDULED;

        /** The script's predicate name. */
        public String predicate() {
            return name().toLowerCase();
        }
    }

    /** The safety properties the views break. */
    public static Set<Property> violated(Map<NodeId, View> views) {
        Set<Property> broken = EnumSet.noneOf(Property.class);
        for (Map.Entry<NodeId, View> entry : views.entrySet()) {
            NodeId node = entry.getKey();
            View view = entry.getValue();
            if (view.children().stream().anyMatch(view.siblings()::contains)) {
                broken.add(Property.CHILDREN_SIBLINGS_DISJOINT);
            }
            if (!view.joined()) {
                continue;
            }
            if (node.equals(view.root()) && !view.siblings().isEmpty()) {
                broken.add(Property.ROOT_HAS_NO_SIBLINGS);
            }
            if (view.children().contains(view.root()) || view.siblings().contains(view.root())) {
                broken.add(Property.ROOT_NOT_A_CHILD);
            }
            if (!view.recoveryTimerScheduled()) {
                broken.add(Property.RECOVERY_TIMER_SCHEDULED);
            }
            if (onLoop(node, views)) {
                broken.add(Property.NO_PARENT_LOOPS);
            }
        }
        return broken;
    }

    /** Whether following parent pointers from {@code node} through joined nodes comes back to a node seen. */
    static boolean onLoop(NodeId node, Map<NodeId, View> views) {
        Set<NodeId> seen = new HashSet<>();
        NodeId at = node;
        while (at != null) {
            View view = views.get(at);
            if (view == null || !view.joined()) {
                return false;
            }
            if (!seen.add(at)) {
                return true;
            }
            at = view.parent();
        }
        return false;
    }

    /** The views of every live node of a cluster. */
    public static Map<NodeId, View> of(Map<NodeId, RandTreeNode> nodes) {
        Map<NodeId, View> views = new TreeMap<>();
        nodes.forEach((id, node) -> views.put(id, View.of(node)));
        return views;
    }

    static Map<NodeId, View> ofStatuses(Map<NodeId, Status> statuses) {
        Map<NodeId, View> views = new TreeMap<>();
        statuses.forEach((id, status) -> views.put(id, View.of(status)));
        return views;
    }

    /**
     * Whether the views form one tree: every node joined, one root that every node names, parents and children
     * agreeing both ways, and no safety property broken.
     */
    public static boolean consistent(Map<NodeId, View> views) {
        List<NodeId> roots = roots(views);
        if (roots.size() != 1 || !violated(views).isEmpty()) {
            return false;
        }
        NodeId root = roots.getFirst();
        for (Map.Entry<NodeId, View> entry : views.entrySet()) {
            NodeId node = entry.getKey();
            View view = entry.getValue();
            if (!view.joined() || !root.equals(view.root())) {
                return false;
            }
            if (!node.equals(root)) {
                View parent = views.get(view.parent());
                if (parent == null || !parent.children().contains(node)) {
                    return false;
                }
            }
            for (NodeId child : view.children()) {
                View childView = views.get(child);
                if (childView == null || !node.equals(childView.parent())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The joined nodes that are their own root. */
    public static List<NodeId> roots(Map<NodeId, View> views) {
        List<NodeId> roots = new ArrayList<>();
        views.forEach((id, view) -> {
            if (view.joined() && id.equals(view.root())) {
                roots.add(id);
            }
        });
        return roots;
    }

    /** The tree as nested children lists from each root, e.g. {@code n1(n2(n4 n5) n3)}, then the nodes left out. */
    public static String describe(Map<NodeId, View> views) {
        StringBuilder out = new StringBuilder();
        Set<NodeId> drawn = new HashSet<>();
        for (NodeId root : roots(views)) {
            if (!out.isEmpty()) {
                out.append(" | ");
            }
            draw(root, views, drawn, out);
        }
        List<String> others = new ArrayList<>();
        views.forEach((id, view) -> {
            if (!drawn.contains(id)) {
                others.add(id + ":" + view.state().name().toLowerCase());
            }
        });
        if (!others.isEmpty()) {
            out.append(out.isEmpty() ? "" : " ").append("[").append(String.join(" ", others)).append("]");
        }
        return out.toString();
    }

    private static void draw(NodeId node, Map<NodeId, View> views, Set<NodeId> drawn, StringBuilder out) {
        out.append(node);
        if (!drawn.add(node)) {
            out.append("!"); // seen before: a loop or a node listed by two parents
            return;
        }
        View view = views.get(node);
        if (view == null || view.children().isEmpty()) {
            return;
        }
        out.append('(');
        boolean first = true;
        for (NodeId child : view.children()) {
            if (!first) {
                out.append(' ');
            }
            first = false;
            draw(child, views, drawn, out);
        }
        out.append(')');
    }
}
