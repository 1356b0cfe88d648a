//! Strongly connected components (Tarjan's algorithm, iterative: no recursion, linear time).

/// The strongly connected components of the graph `0..successors.len()`, each listed in
/// ascending node order. Components come in reverse topological order: a component is emitted
/// after every component reachable from it.
pub(crate) fn components(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let count = successors.len();
    let mut index = vec![UNSEEN; count];
    let mut low = vec![0usize; count];
    let mut on_stack = vec![false; count];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
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
            if let Some(&succ) = successors[node].get(position) {
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
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                component.sort_unstable();
                out.push(component);
            }
        }
    }
    out
}

/// True when the component is a cycle: more than one node, or one node with an edge to itself.
pub(crate) fn is_cyclic(component: &[usize], successors: &[Vec<usize>]) -> bool {
    match component {
        [single] => successors[*single].contains(single),
        _ => component.len() > 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles_and_orders_sinks_first() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 4 -> 4
        let graph = vec![vec![1], vec![2], vec![1, 3], vec![], vec![4]];
        let found = components(&graph);
        assert_eq!(found, vec![vec![3], vec![1, 2], vec![0], vec![4]]);
        assert!(is_cyclic(&[1, 2], &graph));
        assert!(is_cyclic(&[4], &graph));
        assert!(!is_cyclic(&[0], &graph));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let graph: Vec<Vec<usize>> = (0..200_000).map(|i| vec![(i + 1) % 200_000]).collect();
        let found = components(&graph);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].len(), 200_000);
    }
}
