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

/// The most work network simplex does on one picture, counted in the node and edge visits of
/// its tight-tree searches and pivots (deterministic, unlike a clock): once spent, the layering
/// found so far (always valid, every edge pointing down at least one rank) is kept, so a
/// hostile flow costs a bounded time. The 500-step benchmark needs 2,198, the largest graph
/// of the comparison harness 1,320, a 500-step flow jumping at random (`hostile_flow`) 11,860.
const SIMPLEX_WORK: u64 = 50_000_000;

/// Layers by network simplex (Gansner et al., "A technique for drawing directed graphs",
/// 1993): ranks that keep every edge (reversed where [`break_cycles`] said) pointing down and
/// make the total edge length least, each connected part of the graph from rank 0; parallel
/// edges weigh as many. Layers are twice the ranks: nodes lie on even layers, edge points and
/// labels on the odd ones between.
pub(super) fn assign_layers(
    count: usize,
    edges: &[(usize, usize, EdgeKind, Option<usize>)],
    reversed: &[bool],
) -> Vec<usize> {
    // Directed edges top to bottom, parallel ones merged into one of their summed weight.
    let mut weights: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        if from == to {
            continue;
        }
        let key = if reversed[e] { (to, from) } else { (from, to) };
        *weights.entry(key).or_insert(0) += 1;
    }
    let simple: Vec<(usize, usize, i64)> =
        weights.into_iter().map(|((a, b), w)| (a, b, w)).collect();
    let mut rank = longest_path(count, &simple);
    let mut work = SIMPLEX_WORK;
    let root = roots(count, &simple);
    for part in parts(&root, &simple) {
        Simplex::new(&part, &simple, &mut rank).run(&mut work);
    }
    // Each part from rank 0.
    let mut lowest: BTreeMap<usize, i64> = BTreeMap::new();
    for n in 0..count {
        let low = lowest.entry(root[n]).or_insert(rank[n]);
        *low = (*low).min(rank[n]);
    }
    (0..count)
        .map(|n| usize::try_from(2 * (rank[n] - lowest[&root[n]])).unwrap_or(0))
        .collect()
}

/// A first valid ranking: each node one below its lowest predecessor (sources at 0).
fn longest_path(count: usize, edges: &[(usize, usize, i64)]) -> Vec<i64> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut indegree = vec![0usize; count];
    for &(a, b, _) in edges {
        succ[a].push(b);
        indegree[b] += 1;
    }
    let mut rank = vec![0i64; count];
    let mut ready: Vec<usize> = (0..count).rev().filter(|&n| indegree[n] == 0).collect();
    while let Some(n) = ready.pop() {
        for &m in &succ[n] {
            rank[m] = rank[m].max(rank[n] + 1);
            indegree[m] -= 1;
            if indegree[m] == 0 {
                ready.push(m);
            }
        }
    }
    rank
}

/// The smallest node of each node's connected part (edges taken both ways).
fn roots(count: usize, edges: &[(usize, usize, i64)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..count).collect();
    fn find(parent: &mut [usize], mut n: usize) -> usize {
        while parent[n] != n {
            parent[n] = parent[parent[n]];
            n = parent[n];
        }
        n
    }
    for &(a, b, _) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    (0..count).map(|n| find(&mut parent, n)).collect()
}

/// The connected parts with at least one edge, from each node's [`roots`]: (their nodes,
/// their edges' indices), in node order.
fn parts(root: &[usize], edges: &[(usize, usize, i64)]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut by_root: BTreeMap<usize, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for (e, &(a, _, _)) in edges.iter().enumerate() {
        by_root.entry(root[a]).or_default().1.push(e);
    }
    for (n, r) in root.iter().enumerate() {
        if let Some(part) = by_root.get_mut(r) {
            part.0.push(n);
        }
    }
    by_root.into_values().collect()
}

/// Network simplex on one connected part, in its own numbering: `tail`, `head` and `weight`
/// per edge, a spanning tree of tight edges, and each tree edge's cut value.
struct Simplex<'a> {
    nodes: &'a [usize],
    tail: Vec<usize>,
    head: Vec<usize>,
    weight: Vec<i64>,
    /// Edges at each node.
    incident: Vec<Vec<usize>>,
    rank: Vec<i64>,
    in_tree: Vec<bool>,
    cut: Vec<i64>,
    /// Post-order numbers of the tree from node 0: a node's subtree is `low..=lim`.
    low: Vec<usize>,
    lim: Vec<usize>,
    /// The tree edge to each node's parent (none for node 0).
    parent_edge: Vec<Option<usize>>,
    /// The nodes in post-order (children before parents).
    postorder: Vec<usize>,
    /// The global ranks, written back at the end.
    out: &'a mut Vec<i64>,
}

impl<'a> Simplex<'a> {
    fn new(
        part: &'a (Vec<usize>, Vec<usize>),
        edges: &[(usize, usize, i64)],
        out: &'a mut Vec<i64>,
    ) -> Self {
        let (nodes, ids) = part;
        let local: BTreeMap<usize, usize> =
            nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut incident = vec![Vec::new(); nodes.len()];
        let (mut tail, mut head, mut weight) = (Vec::new(), Vec::new(), Vec::new());
        for (e, &id) in ids.iter().enumerate() {
            let (a, b, w) = edges[id];
            let (a, b) = (local[&a], local[&b]);
            tail.push(a);
            head.push(b);
            weight.push(w);
            incident[a].push(e);
            incident[b].push(e);
        }
        let rank = nodes.iter().map(|&n| out[n]).collect();
        let m = ids.len();
        let n = nodes.len();
        Simplex {
            nodes,
            tail,
            head,
            weight,
            incident,
            rank,
            in_tree: vec![false; m],
            cut: vec![0; m],
            low: vec![0; n],
            lim: vec![0; n],
            parent_edge: vec![None; n],
            postorder: Vec::with_capacity(n),
            out,
        }
    }

    fn slack(&self, e: usize) -> i64 {
        self.rank[self.head[e]] - self.rank[self.tail[e]] - 1
    }

    fn other(&self, e: usize, n: usize) -> usize {
        if self.tail[e] == n {
            self.head[e]
        } else {
            self.tail[e]
        }
    }

    /// Spends `cost` of the budget, or says it is spent.
    fn spend(work: &mut u64, cost: usize) -> bool {
        let cost = cost as u64;
        if *work < cost {
            *work = 0;
            return false;
        }
        *work -= cost;
        true
    }

    /// Grows a tree of tight edges from node 0 over the whole part, shifting the tree's ranks
    /// towards the nearest node outside it; false once the budget is spent (the ranks are
    /// still valid).
    fn feasible_tree(&mut self, work: &mut u64) -> bool {
        let n = self.rank.len();
        let mut in_tree = vec![false; n];
        in_tree[0] = true;
        let mut size = 1;
        let mut members = vec![0usize];
        loop {
            // Every tight edge from the tree to a node outside it joins the tree.
            let mut stack = members.clone();
            while let Some(v) = stack.pop() {
                for i in 0..self.incident[v].len() {
                    let e = self.incident[v][i];
                    let w = self.other(e, v);
                    if !in_tree[w] && self.slack(e) == 0 {
                        in_tree[w] = true;
                        self.in_tree[e] = true;
                        size += 1;
                        members.push(w);
                        stack.push(w);
                    }
                }
            }
            if size == n {
                return true;
            }
            if !Self::spend(work, self.tail.len() + n) {
                return false;
            }
            // The edge of least slack with one end in the tree.
            let Some(e) = (0..self.tail.len())
                .filter(|&e| in_tree[self.tail[e]] != in_tree[self.head[e]])
                .min_by_key(|&e| self.slack(e))
            else {
                return false;
            };
            let delta = if in_tree[self.tail[e]] {
                self.slack(e)
            } else {
                -self.slack(e)
            };
            for &v in &members {
                self.rank[v] += delta;
            }
        }
    }

    /// Post-order numbers, parents and cut values of the current tree.
    fn number(&mut self) {
        let n = self.rank.len();
        let mut tree: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in (0..self.tail.len()).filter(|&e| self.in_tree[e]) {
            tree[self.tail[e]].push(e);
            tree[self.head[e]].push(e);
        }
        self.parent_edge[0] = None;
        let mut next = 1;
        let mut postorder = std::mem::take(&mut self.postorder);
        postorder.clear();
        let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, next)];
        while let Some(&mut (v, ref mut i, low)) = stack.last_mut() {
            if let Some(&e) = tree[v].get(*i) {
                *i += 1;
                if Some(e) != self.parent_edge[v] {
                    let w = self.other(e, v);
                    self.parent_edge[w] = Some(e);
                    stack.push((w, 0, next));
                }
            } else {
                self.low[v] = low;
                self.lim[v] = next;
                next += 1;
                postorder.push(v);
                stack.pop();
            }
        }
        for &child in &postorder {
            let Some(pe) = self.parent_edge[child] else {
                continue;
            };
            let child_is_tail = self.tail[pe] == child;
            let mut cut = self.weight[pe];
            for &e in &self.incident[child] {
                if e == pe {
                    continue;
                }
                let is_out = self.tail[e] == child;
                let points_to_head = is_out == child_is_tail;
                let w = self.weight[e];
                cut += if points_to_head { w } else { -w };
                if self.in_tree[e] {
                    cut += if points_to_head {
                        -self.cut[e]
                    } else {
                        self.cut[e]
                    };
                }
            }
            self.cut[pe] = cut;
        }
        self.postorder = postorder;
    }

    /// Whether `v` lies in the subtree of `root`.
    fn below(&self, v: usize, root: usize) -> bool {
        self.low[root] <= self.lim[v] && self.lim[v] <= self.lim[root]
    }

    /// Ranks from the tree: each node one rank from its parent along their tight edge.
    fn rerank(&mut self) {
        // Parents before children: the post-order backwards.
        for k in (0..self.postorder.len()).rev() {
            let v = self.postorder[k];
            if let Some(pe) = self.parent_edge[v] {
                let parent = self.other(pe, v);
                self.rank[v] = if self.tail[pe] == v {
                    self.rank[parent] - 1
                } else {
                    self.rank[parent] + 1
                };
            }
        }
    }

    fn run(mut self, work: &mut u64) {
        if self.feasible_tree(work) {
            self.number();
            let m = self.tail.len();
            let n = self.rank.len();
            while Self::spend(work, 2 * m + 2 * n) {
                // A tree edge of negative cut value leaves; the edge of least slack across
                // the cut it makes enters.
                let Some(leave) = (0..m).find(|&e| self.in_tree[e] && self.cut[e] < 0) else {
                    break;
                };
                let (v, w) = (self.tail[leave], self.head[leave]);
                let (sub, flip) = if self.lim[v] > self.lim[w] {
                    (w, true)
                } else {
                    (v, false)
                };
                let Some(enter) = (0..m)
                    .filter(|&f| {
                        !self.in_tree[f]
                            && flip == self.below(self.tail[f], sub)
                            && flip != self.below(self.head[f], sub)
                    })
                    .min_by_key(|&f| self.slack(f))
                else {
                    break;
                };
                self.in_tree[leave] = false;
                self.in_tree[enter] = true;
                self.number();
                self.rerank();
            }
        }
        for (i, &n) in self.nodes.iter().enumerate() {
            self.out[n] = self.rank[i];
        }
    }
}

#[cfg(test)]
mod rank_tests {
    use super::*;
    use proptest::prelude::*;

    /// Edges of the layering input: all forward, none reversed.
    fn input(edges: &[(usize, usize)]) -> Vec<(usize, usize, EdgeKind, Option<usize>)> {
        edges
            .iter()
            .map(|&(a, b)| (a, b, EdgeKind::Next, None))
            .collect()
    }

    /// The least total edge length (in ranks) of any valid ranking, by trying every ranking
    /// with ranks below `count`.
    fn least_length(count: usize, edges: &[(usize, usize)]) -> i64 {
        let mut rank = vec![0i64; count];
        let mut best = i64::MAX;
        loop {
            if edges.iter().all(|&(a, b)| a == b || rank[b] > rank[a]) {
                let length = edges
                    .iter()
                    .filter(|&&(a, b)| a != b)
                    .map(|&(a, b)| rank[b] - rank[a])
                    .sum();
                best = best.min(length);
            }
            let mut i = 0;
            while i < count && rank[i] + 1 == count as i64 {
                rank[i] = 0;
                i += 1;
            }
            if i == count {
                return best;
            }
            rank[i] += 1;
        }
    }

    #[test]
    fn a_source_sits_just_above_its_successor() {
        // 0 → 1 → 2 → 3 and 4 → 3: longest path puts 4 at the top, 3 edges from 3; network
        // simplex one rank above it.
        let edges = input(&[(0, 1), (1, 2), (2, 3), (4, 3)]);
        let layer = assign_layers(5, &edges, &[false; 4]);
        assert_eq!(layer, vec![0, 2, 4, 6, 4]);
    }

    #[test]
    fn a_spent_budget_keeps_the_first_valid_ranking() {
        let edges = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (4, 3, 1)];
        let mut rank = longest_path(5, &edges);
        let mut work = 0;
        for part in parts(&roots(5, &edges), &edges) {
            Simplex::new(&part, &edges, &mut rank).run(&mut work);
        }
        assert_eq!(rank, vec![0, 1, 2, 3, 0]);
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            rng_seed: prop::test_runner::RngSeed::Fixed(0x51_4e1e),
            ..ProptestConfig::default()
        })]

        #[test]
        fn layers_are_valid_and_of_least_total_length(
            count in 1usize..7,
            pairs in prop::collection::vec((0usize..7, 0usize..7), 0..12),
        ) {
            // Edges from a lower to a higher node (a DAG), some parallel, some self-loops.
            let edges: Vec<(usize, usize)> = pairs
                .into_iter()
                .map(|(a, b)| (a % count, b % count))
                .map(|(a, b)| (a.min(b), a.max(b)))
                .collect();
            let layer = assign_layers(count, &input(&edges), &vec![false; edges.len()]);
            for &(a, b) in &edges {
                if a != b {
                    prop_assert!(layer[b] >= layer[a] + 2, "{:?}: {:?}", edges, layer);
                }
            }
            prop_assert!(layer.iter().all(|l| l % 2 == 0));
            // Every connected part starts at layer 0.
            let parts_of = roots(count, &edges.iter().map(|&(a, b)| (a, b, 1)).collect::<Vec<_>>());
            for r in 0..count {
                let lowest = (0..count).filter(|&n| parts_of[n] == r).map(|n| layer[n]).min();
                prop_assert!(lowest.is_none_or(|l| l == 0), "{:?}: {:?}", edges, layer);
            }
            let length: i64 = edges
                .iter()
                .filter(|&&(a, b)| a != b)
                .map(|&(a, b)| (layer[b] - layer[a]) as i64 / 2)
                .sum();
            prop_assert_eq!(length, least_length(count, &edges), "{:?}: {:?}", edges, layer);
        }
    }
}
