//! Cycle breaking and layering.

use super::*;

/// Marks the edges a depth-first search finds going back to a node on its stack; reversing
/// them leaves a graph without cycles. Roots are taken in node order, so the entry comes first.
pub(super) fn break_cycles(
    count: usize,
    edges: &[(usize, usize, EdgeKind, Option<usize>)],
) -> Vec<bool> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        if from != to {
            out[from].push(e);
        }
    }
    // 0: unseen, 1: on the stack, 2: done.
    let mut state = vec![0u8; count];
    let mut reversed = vec![false; edges.len()];
    for root in 0..count {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&e) = out[node].get(*next) {
                *next += 1;
                let to = edges[e].1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => reversed[e] = true,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    reversed
}

/// Layers by longest path from the sources (every edge two layers long), then each source
/// pulled down next to its first successor.
pub(super) fn assign_layers(
    count: usize,
    edges: &[(usize, usize, EdgeKind, Option<usize>)],
    reversed: &[bool],
) -> Vec<usize> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut indegree = vec![0usize; count];
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        if from == to {
            continue;
        }
        let (a, b) = if reversed[e] { (to, from) } else { (from, to) };
        succ[a].push(b);
        indegree[b] += 1;
    }
    let sources: Vec<bool> = indegree.iter().map(|&d| d == 0).collect();
    let mut layer = vec![0usize; count];
    let mut ready: Vec<usize> = (0..count).rev().filter(|&n| indegree[n] == 0).collect();
    let mut topological = Vec::with_capacity(count);
    while let Some(n) = ready.pop() {
        topological.push(n);
        for &m in &succ[n] {
            layer[m] = layer[m].max(layer[n] + 2);
            indegree[m] -= 1;
            if indegree[m] == 0 {
                ready.push(m);
            }
        }
    }
    for &n in topological.iter().rev() {
        if sources[n]
            && let Some(lowest) = succ[n].iter().map(|&m| layer[m]).min()
        {
            layer[n] = layer[n].max(lowest.saturating_sub(2));
        }
    }
    // Shorter edges: each node moves, within what its edges allow, to the median layer of its
    // neighbours (a few passes; every move shortens the total edge length or keeps it).
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (a, list) in succ.iter().enumerate() {
        for &b in list {
            pred[b].push(a);
        }
    }
    let mut neighbours = Vec::new();
    for _ in 0..4 {
        let mut moved = false;
        for &n in &topological {
            let low = pred[n].iter().map(|&m| layer[m] + 2).max().unwrap_or(0);
            let high = succ[n]
                .iter()
                .map(|&m| layer[m] - 2)
                .min()
                .unwrap_or(usize::MAX);
            neighbours.clear();
            neighbours.extend(pred[n].iter().chain(&succ[n]).map(|&m| layer[m]));
            if neighbours.is_empty() || low > high {
                continue;
            }
            neighbours.sort_unstable();
            let median = neighbours[(neighbours.len() - 1) / 2];
            let best = median.clamp(low, high);
            let cost = |l: usize| neighbours.iter().map(|&m| l.abs_diff(m)).sum::<usize>();
            if best != layer[n] && cost(best) < cost(layer[n]) {
                layer[n] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let lowest = layer.iter().copied().min().unwrap_or(0);
    for l in &mut layer {
        *l -= lowest;
    }
    layer
}
