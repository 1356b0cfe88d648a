//! Strongly connected components (Tarjan's algorithm, iterative: no recursion, linear time).
//!
//! Graphs and components are kept flat (one vector of members plus offsets) rather than as a
//! vector per node: a flow has one small component per step, and an allocation for each was a
//! visible share of linting.

use std::ops::Range;

/// A directed graph over the nodes `0..len()`, the successors of every node in one vector.
#[derive(Debug, Default)]
pub(crate) struct Adjacency {
    /// `targets[ranges[n]]` are the successors of node `n`.
    ranges: Vec<Range<usize>>,
    targets: Vec<usize>,
}

impl Adjacency {
    /// An empty graph with room for `nodes` nodes and `edges` edges.
    pub(crate) fn with_capacity(nodes: usize, edges: usize) -> Self {
        Self {
            ranges: Vec::with_capacity(nodes),
            targets: Vec::with_capacity(edges),
        }
    }

    /// Adds the next node, with these successors.
    pub(crate) fn push_node(&mut self, successors: impl IntoIterator<Item = usize>) {
        let start = self.targets.len();
        self.targets.extend(successors);
        self.ranges.push(start..self.targets.len());
    }

    /// How many nodes there are.
    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }

    /// The successors of `node`, in the order given.
    pub(crate) fn successors(&self, node: usize) -> &[usize] {
        self.ranges
            .get(node)
            .and_then(|range| self.targets.get(range.clone()))
            .unwrap_or(&[])
    }
}

/// The components found by [`components`], in one vector.
#[derive(Debug, Default)]
pub(crate) struct Components {
    members: Vec<usize>,
    ranges: Vec<Range<usize>>,
}

impl Components {
    /// Each component's members in ascending order, components in the order found.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &[usize]> + ExactSizeIterator {
        self.ranges
            .iter()
            .map(|range| self.members.get(range.clone()).unwrap_or(&[]))
    }
}

/// The strongly connected components of the graph `0..successors.len()`, each listed in
/// ascending node order. Components come in reverse topological order: a component is emitted
/// after every component reachable from it.
pub(crate) fn components(graph: &Adjacency) -> Components {
    const UNSEEN: usize = usize::MAX;
    let count = graph.len();
    let mut index = vec![UNSEEN; count];
    let mut low = vec![0usize; count];
    let mut on_stack = vec![false; count];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Components {
        members: Vec::with_capacity(count),
        ranges: Vec::new(),
    };
    let mut next_index = 0usize;
    // Each frame: (node, position of the next successor to visit).
    let mut frames: Vec<(usize, usize)> = Vec::new();
    for root in 0..count {
        if index[root] != UNSEEN {
            continue;
        }
        frames.push((root, 0));
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(frame) = frames.last_mut() {
            let (node, position) = *frame;
            if let Some(&succ) = graph.successors(node).get(position) {
                frame.1 += 1;
                if succ >= count {
                    continue;
                }
                if index[succ] == UNSEEN {
                    index[succ] = next_index;
                    low[succ] = next_index;
                    next_index += 1;
                    stack.push(succ);
                    on_stack[succ] = true;
                    frames.push((succ, 0));
                } else if on_stack[succ] {
                    low[node] = low[node].min(index[succ]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let start = out.members.len();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    out.members.push(member);
                    if member == node {
                        break;
                    }
                }
                out.members[start..].sort_unstable();
                out.ranges.push(start..out.members.len());
            }
        }
    }
    out
}

/// True when the component is a cycle: more than one node, or one node with an edge to itself.
pub(crate) fn is_cyclic(component: &[usize], graph: &Adjacency) -> bool {
    match component {
        [single] => graph.successors(*single).contains(single),
        _ => component.len() > 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(lists: &[&[usize]]) -> Adjacency {
        let mut graph = Adjacency::default();
        for list in lists {
            graph.push_node(list.iter().copied());
        }
        graph
    }

    #[test]
    fn finds_cycles_and_orders_sinks_first() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 4 -> 4
        let graph = graph(&[&[1], &[2], &[1, 3], &[], &[4]]);
        let found = components(&graph);
        let found: Vec<&[usize]> = found.iter().collect();
        assert_eq!(found, [&[3][..], &[1, 2], &[0], &[4]]);
        assert_eq!(graph.successors(2), [1, 3]);
        assert_eq!(graph.successors(5), [0usize; 0]);
        assert!(is_cyclic(&[1, 2], &graph));
        assert!(is_cyclic(&[4], &graph));
        assert!(!is_cyclic(&[0], &graph));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let mut graph = Adjacency::default();
        for i in 0..200_000 {
            graph.push_node([(i + 1) % 200_000]);
        }
        let found = components(&graph);
        assert_eq!(found.iter().len(), 1);
        assert_eq!(found.iter().next().map(<[usize]>::len), Some(200_000));
    }
}
