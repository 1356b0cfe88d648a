//! Crossing reduction: the order of the items within each layer.

use super::*;

/// Crossings between two adjacent layers, from the positions of each edge's ends; `tree` is
/// scratch space.
fn count_between(pairs: &mut [(usize, usize)], tree: &mut Vec<usize>) -> usize {
    pairs.sort_unstable();
    // Inversions of the lower ends, counted with a Fenwick tree.
    let size = pairs.iter().map(|p| p.1).max().map_or(0, |m| m + 1);
    tree.clear();
    tree.resize(size + 1, 0);
    let mut crossings = 0;
    for (seen, &(_, b)) in pairs.iter().enumerate() {
        // Earlier edges whose lower end is at most b do not cross this one.
        let mut at = b + 1;
        let mut not_crossing = 0;
        while at > 0 {
            not_crossing += tree[at];
            at &= at - 1;
        }
        crossings += seen - not_crossing;
        let mut at = b + 1;
        while at <= size {
            tree[at] += 1;
            at += at & at.wrapping_neg();
        }
    }
    crossings
}

/// All crossings of an order.
fn total_crossings(down: &[Vec<usize>], order: &[Vec<usize>], position: &[usize]) -> usize {
    let mut total = 0;
    let mut pairs = Vec::new();
    let mut tree = Vec::new();
    for row in order {
        pairs.clear();
        for &a in row {
            for &b in &down[a] {
                pairs.push((position[a], position[b]));
            }
        }
        total += count_between(&mut pairs, &mut tree);
    }
    total
}

/// How good an order is: its crossings, then how far its edges run sideways (the sum over
/// edges of the difference of their ends' places in their layers), so that among orders
/// crossing as often the one whose edges run straightest wins.
type Score = (usize, usize);

fn score(down: &[Vec<usize>], order: &[Vec<usize>], position: &[usize]) -> Score {
    let sideways = order
        .iter()
        .flatten()
        .flat_map(|&a| {
            down[a]
                .iter()
                .map(move |&b| position[a].abs_diff(position[b]))
        })
        .sum();
    (total_crossings(down, order, position), sideways)
}

fn positions(order: &[Vec<usize>], position: &mut [usize]) {
    for row in order {
        for (p, &i) in row.iter().enumerate() {
            position[i] = p;
        }
    }
}

/// How an order of the layers begins, before sweeps improve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// Document order (items in the order they were made).
    Document,
    /// The order in which a depth-first search reaches the items: from the top layer down or
    /// from the bottom up, roots and children in document order or in reverse, the result
    /// mirrored or not.
    Search {
        upward: bool,
        roots_backward: bool,
        children_backward: bool,
        mirror: bool,
    },
}

/// Shorthand for a [`Start::Search`].
const fn search(
    upward: bool,
    roots_backward: bool,
    children_backward: bool,
    mirror: bool,
) -> Start {
    Start::Search {
        upward,
        roots_backward,
        children_backward,
        mirror,
    }
}

/// The starts of crossing reduction, in the order they are tried: every graph gets the first
/// [`LARGE_STARTS`], a graph of at most [`SMALL_GRAPH`] items all of them. Chosen by measurement
/// on the comparison harness (`tools/render-compare`): each one, added in this order, lowered
/// the total of crossings.
const STARTS: [Start; 10] = [
    Start::Document,
    search(false, false, false, false),
    search(true, false, false, false),
    search(false, true, true, false),
    search(true, true, true, false),
    search(true, false, false, true),
    search(false, true, false, false),
    search(false, false, false, true),
    search(true, true, true, true),
    search(false, false, true, false),
];
/// Starts tried on a graph of more than [`SMALL_GRAPH`] items.
const LARGE_STARTS: usize = 5;
/// The most items (nodes, edge points, labels) of a graph that gets every start (a few
/// milliseconds at most).
const SMALL_GRAPH: usize = 1000;
/// Rounds without improvement after which a start stops.
const PATIENCE: usize = 4;
/// The most work crossing reduction does on one graph, in neighbour pairs compared (see
/// [`Work`]): once spent, the current round ends and no further start or cluster order is
/// tried, so a hostile flow costs a bounded time, the same on every machine.
const ORDER_WORK: u64 = 100_000_000;

/// Work done by crossing reduction, counted in the neighbour pairs that crossing counts
/// compare: deterministic, unlike a clock.
#[derive(Debug)]
struct Work {
    done: u64,
    limit: u64,
}

impl Work {
    /// Counts `pairs` compared.
    fn add(&mut self, pairs: usize) {
        self.done = self.done.saturating_add(pairs as u64);
    }

    /// Whether the budget is spent.
    fn spent(&self) -> bool {
        self.done >= self.limit
    }
}

/// The first order of a start: items appended to their layer in document order or in the
/// order a depth-first search first reaches them (possibly mirrored), then grouped by
/// cluster (stable, so each cluster keeps that order), each node's out-edges in document
/// order.
fn initial_order(
    start: Start,
    items: &[Item],
    links: &Links<'_>,
    layers: usize,
) -> Vec<Vec<usize>> {
    let (up, down) = (links.up, links.down);
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); layers];
    let mirror = match start {
        Start::Document => {
            for (i, item) in items.iter().enumerate() {
                out[item.layer].push(i);
            }
            false
        }
        Start::Search {
            upward,
            roots_backward,
            children_backward,
            mirror,
        } => {
            let mut roots: Vec<usize> = (0..items.len()).collect();
            if roots_backward {
                roots.reverse();
            }
            // Stable: within a layer, roots keep the order chosen above.
            if upward {
                roots.sort_by_key(|&i| std::cmp::Reverse(items[i].layer));
            } else {
                roots.sort_by_key(|&i| items[i].layer);
            }
            let next = if upward { up } else { down };
            let mut seen = vec![false; items.len()];
            let mut stack: Vec<usize> = Vec::new();
            for root in roots {
                stack.push(root);
                while let Some(i) = stack.pop() {
                    if seen[i] {
                        continue;
                    }
                    seen[i] = true;
                    out[items[i].layer].push(i);
                    // Pushed so the first child to visit is popped first.
                    let children = next[i].iter().copied().filter(|&j| !seen[j]);
                    if children_backward {
                        stack.extend(children);
                    } else {
                        let from = stack.len();
                        stack.extend(children);
                        stack[from..].reverse();
                    }
                }
            }
            mirror
        }
    };
    let mut position = vec![0usize; items.len()];
    let mut scratch = Vec::new();
    for row in &mut out {
        if mirror {
            row.reverse();
        }
        row.sort_by_key(|&i| items[i].group);
        keep_fans(links.fan, row, &mut position, &mut scratch);
    }
    out
}

/// Orders of the clusters to try, each a list of flows left to right: for three or four
/// clusters every order up to mirroring (a heuristic: the mirrored order keeps each cluster's
/// inner starting order and tie-breaks, so its layout is close to, not exactly, the mirror
/// image), else
/// document order.
fn cluster_orders(clusters: usize) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = (0..clusters).collect();
    if !(3..=4).contains(&clusters) {
        return vec![current];
    }
    let mut out = Vec::new();
    // Permutations in lexicographic order, document order first.
    loop {
        if current[0] < current[clusters - 1] {
            out.push(current.clone());
        }
        let Some(i) = (0..clusters - 1)
            .rev()
            .find(|&i| current[i] < current[i + 1])
        else {
            break;
        };
        let j = (i + 1..clusters)
            .rev()
            .find(|&j| current[j] > current[i])
            .unwrap_or(i + 1);
        current.swap(i, j);
        current[i + 1..].reverse();
    }
    out
}

/// The edges between layers, both ways, and the out-edge ranks that crossing reduction keeps
/// in document order.
pub(crate) struct Links<'a> {
    /// Each item's neighbours in the layer above.
    pub(crate) up: &'a [Vec<usize>],
    /// Each item's neighbours in the layer below.
    pub(crate) down: &'a [Vec<usize>],
    /// For each point of a node's out-edge: (the node, the edge's rank among the node's
    /// out-edges in document order).
    pub(crate) fan: &'a [Option<(usize, usize)>],
}

impl Links<'_> {
    /// True when `u` and `v` are points of two out-edges of one node (they keep their order).
    fn siblings(&self, u: usize, v: usize) -> bool {
        matches!((self.fan[u], self.fan[v]), (Some((a, _)), Some((b, _))) if a == b)
    }
}

/// Puts the points of each node's out-edges in `row` back in document order among the places
/// they hold (the rule every order obeys: out-edges leave their node, and cross each layer, in
/// the order the document lists them); `scratch` is scratch space.
fn keep_fans(
    fan: &[Option<(usize, usize)>],
    row: &mut [usize],
    position: &mut [usize],
    scratch: &mut Vec<(usize, usize, usize)>,
) {
    // (source, place, item), then the same items by (source, rank): the k-th place of a
    // source's points gets its k-th ranked point.
    scratch.clear();
    scratch.extend(
        row.iter()
            .enumerate()
            .filter_map(|(p, &i)| fan[i].map(|(source, _)| (source, p, i))),
    );
    if scratch.len() < 2 {
        return;
    }
    scratch.sort_unstable();
    let places: Vec<usize> = scratch.iter().map(|&(_, p, _)| p).collect();
    scratch.sort_unstable_by_key(|&(source, _, i)| (source, fan[i].map_or(0, |(_, rank)| rank)));
    for (&p, &(_, _, i)) in places.iter().zip(scratch.iter()) {
        row[p] = i;
        position[i] = p;
    }
}

/// Crossing reduction: sweeps with transposition and sifting from the first start in each
/// cluster order, then from the other starts (see [`STARTS`]) in the best cluster order, every
/// order keeping each node's out-edges in document order (see [`keep_fans`]); keeps the order
/// with the fewest crossings (the first found on a tie), writes it to `order` (and each item's
/// cluster place to `group`) and returns its crossings.
pub(super) fn reduce_crossings(
    items: &mut [Item],
    links: &Links<'_>,
    clusters: usize,
    order: &mut [Vec<usize>],
) -> usize {
    let starts = if items.len() <= SMALL_GRAPH {
        &STARTS[..]
    } else {
        &STARTS[..LARGE_STARTS]
    };
    let mut position = vec![0usize; items.len()];
    let layers = order.len();
    let mut work = Work {
        done: 0,
        limit: ORDER_WORK,
    };
    // The fewest crossings so far, its order and the cluster place of each flow (the first
    // found on a tie).
    let mut best = Best {
        score: (usize::MAX, usize::MAX),
        order: Vec::new(),
        place: vec![0; clusters],
    };
    let mut attempt = |items: &mut [Item], start: Start, place: &[usize], best: &mut Best| {
        for item in items.iter_mut() {
            item.group = place[item.flow];
        }
        let mut candidate = initial_order(start, items, links, layers);
        let found = improve(items, links, &mut candidate, &mut position, &mut work);
        if found < best.score {
            *best = Best {
                score: found,
                order: candidate,
                place: place.to_vec(),
            };
        }
        work.spent()
    };
    // The first start in every cluster order, then the other starts in the best one.
    // `attempt` tells whether the work budget is spent.
    let mut place = vec![0usize; clusters];
    let mut spent = false;
    for flows in cluster_orders(clusters) {
        for (g, &f) in flows.iter().enumerate() {
            place[f] = g;
        }
        spent = attempt(items, starts[0], &place, &mut best);
        if best.score.0 == 0 || spent {
            break;
        }
    }
    let best_place = best.place.clone();
    for &start in &starts[1..] {
        if best.score.0 == 0 || spent {
            break;
        }
        spent = attempt(items, start, &best_place, &mut best);
    }
    for item in items.iter_mut() {
        item.group = best.place[item.flow];
    }
    order.clone_from_slice(&best.order);
    best.score.0
}

/// The best order crossing reduction has found so far.
#[derive(Debug)]
struct Best {
    score: Score,
    order: Vec<Vec<usize>>,
    /// Each flow's place among the clusters, left to right.
    place: Vec<usize>,
}

/// Barycenter sweeps, alternately down and up, each followed by transposition and sifting,
/// until [`PATIENCE`] rounds in a row bring no improvement (at most [`ORDER_ROUNDS`]). Ties keep
/// the current order, or reverse it every other pair of sweeps (so equal items are tried both
/// ways round); each node's out-edges keep document order throughout (see [`keep_fans`]).
/// Leaves the order with the fewest crossings seen in `order` and returns them.
fn improve(
    items: &[Item],
    links: &Links<'_>,
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
) -> Score {
    let (up, down) = (links.up, links.down);
    positions(order, position);
    transpose(items, links, order, position, work);
    sift(items, links, order, position, work);
    let mut best = score(down, order, position);
    let mut best_order = order.to_vec();
    let mut stale = 0;
    let mut keyed: Vec<(usize, i64, usize, usize)> = Vec::new();
    let mut scratch = Vec::new();
    for round in 0..ORDER_ROUNDS {
        if best.0 == 0 || stale >= PATIENCE || work.spent() {
            break;
        }
        let downward = round % 2 == 0;
        let reverse_ties = (round / 2) % 2 == 1;
        let layers: Vec<usize> = if downward {
            (1..order.len()).collect()
        } else {
            (0..order.len().saturating_sub(1)).rev().collect()
        };
        let neighbours = if downward { up } else { down };
        for l in layers {
            keyed.clear();
            keyed.extend(order[l].iter().map(|&i| {
                let list = &neighbours[i];
                // Barycenter in 1/1024 positions; an item without neighbours keeps its place.
                let key = if list.is_empty() {
                    position[i] as i64 * 1024
                } else {
                    list.iter().map(|&j| position[j] as i64 * 1024).sum::<i64>() / list.len() as i64
                };
                let tie = if reverse_ties {
                    usize::MAX - position[i]
                } else {
                    position[i]
                };
                (items[i].group, key, tie, i)
            }));
            keyed.sort_unstable();
            for (p, k) in keyed.iter().enumerate() {
                order[l][p] = k.3;
                position[k.3] = p;
            }
            keep_fans(links.fan, &mut order[l], position, &mut scratch);
        }
        transpose(items, links, order, position, work);
        sift(items, links, order, position, work);
        let found = score(down, order, position);
        if found < best {
            best = found;
            best_order.clone_from_slice(order);
            stale = 0;
        } else {
            stale += 1;
        }
    }
    order.clone_from_slice(&best_order);
    best
}

/// Crossings among the edges of `u` and `v` (with both neighbour layers) when `u` is left of
/// `v`.
fn pair_crossings(
    u: usize,
    v: usize,
    up: &[Vec<usize>],
    down: &[Vec<usize>],
    position: &[usize],
    work: &mut Work,
) -> usize {
    work.add(up[u].len() * up[v].len() + down[u].len() * down[v].len() + 1);
    let mut count = 0;
    for lists in [up, down] {
        for &a in &lists[u] {
            for &b in &lists[v] {
                if position[a] > position[b] {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Swaps neighbours of the same cluster, but not two out-edges of one node, while that lowers
/// crossings (a few passes, while `work` lasts).
fn transpose(
    items: &[Item],
    links: &Links<'_>,
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
) {
    let (up, down) = (links.up, links.down);
    for _ in 0..4 {
        if work.spent() {
            break;
        }
        let mut improved = false;
        for row in order.iter_mut() {
            for p in 0..row.len().saturating_sub(1) {
                let (u, v) = (row[p], row[p + 1]);
                if items[u].group != items[v].group || links.siblings(u, v) {
                    continue;
                }
                if pair_crossings(v, u, up, down, position, work)
                    < pair_crossings(u, v, up, down, position, work)
                {
                    row.swap(p, p + 1);
                    position[u] = p + 1;
                    position[v] = p;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// Sifting: each item in turn moves to the place in its layer (among its cluster, and between
/// the out-edges of its node ranked before and after it) where its edges cross the fewest
/// others; ties keep the item where it is. Layer by layer while `work` lasts.
fn sift(
    items: &[Item],
    links: &Links<'_>,
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
) {
    let (up, down) = (links.up, links.down);
    for row in order.iter_mut() {
        if work.spent() {
            return;
        }
        // Quadratic in the layer's width: very wide layers keep the sweeps' order.
        if row.len() < 3 || row.len() > 400 {
            continue;
        }
        for &u in row.clone().iter() {
            let from = position[u];
            let group = items[u].group;
            let start = row
                .iter()
                .position(|&v| items[v].group == group)
                .unwrap_or(0);
            let end = row
                .iter()
                .rposition(|&v| items[v].group == group)
                .map_or(row.len(), |e| e + 1);
            // The places between the out-edges of u's node ranked before and after it.
            let rank = links.fan[u].map(|(_, rank)| rank);
            let (mut lowest, mut highest) = (start, end - 1);
            let mut slot = start;
            for &v in &row[start..end] {
                if v == u {
                    continue;
                }
                if links.siblings(u, v) {
                    let before = links.fan[v].map(|(_, r)| r) < rank;
                    if before {
                        lowest = slot + 1;
                    } else {
                        highest = highest.min(slot);
                    }
                }
                slot += 1;
            }
            // Cost of each insertion place relative to the leftmost one of the cluster.
            let mut cost = 0i64;
            let mut best = (i64::MAX, from);
            let mut at_from = None;
            let mut slot = start;
            for &v in &row[start..end] {
                if v == u {
                    continue;
                }
                if slot == from {
                    at_from = Some(cost);
                }
                if (lowest..=highest).contains(&slot) && cost < best.0 {
                    best = (cost, slot);
                }
                cost += pair_crossings(v, u, up, down, position, work) as i64
                    - pair_crossings(u, v, up, down, position, work) as i64;
                slot += 1;
            }
            if (lowest..=highest).contains(&slot) && cost < best.0 {
                best = (cost, slot);
            }
            if slot == from {
                at_from = Some(cost);
            }
            let current = at_from.unwrap_or(0);
            if best.0 < current && best.1 != from {
                let item = row.remove(from);
                row.insert(best.1, item);
                for (p, &i) in row.iter().enumerate() {
                    position[i] = p;
                }
            }
        }
    }
}

#[cfg(test)]
mod order_tests {
    use super::*;

    fn item(layer: usize) -> Item {
        Item {
            layer,
            left: 1,
            right: 1,
            height: 1,
            flow: 0,
            group: 0,
            node: None,
            x: 0,
        }
    }

    #[test]
    fn cluster_orders_are_every_order_up_to_mirroring_document_order_first() {
        assert_eq!(cluster_orders(2), vec![vec![0, 1]]);
        assert_eq!(
            cluster_orders(3),
            vec![vec![0, 1, 2], vec![0, 2, 1], vec![1, 0, 2]]
        );
        let four = cluster_orders(4);
        assert_eq!(four.len(), 12);
        assert_eq!(four[0], vec![0, 1, 2, 3]);
        assert_eq!(cluster_orders(5), vec![vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn sifting_moves_an_item_past_several_others() {
        // Top: a b c d; bottom: w x y z with a-z, b-w, c-x, d-y: `z` belongs first.
        let items: Vec<Item> = (0..8).map(|i| item(i / 4)).collect();
        let pairs = [(0, 7), (1, 4), (2, 5), (3, 6)];
        let mut up = vec![Vec::new(); 8];
        let mut down = vec![Vec::new(); 8];
        for (a, b) in pairs {
            down[a].push(b);
            up[b].push(a);
        }
        let mut order = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let mut position = vec![0; 8];
        positions(&order, &mut position);
        assert_eq!(total_crossings(&down, &order, &position), 3);
        let mut work = Work {
            done: 0,
            limit: u64::MAX,
        };
        let fan = vec![None; items.len()];
        let links = Links {
            up: &up,
            down: &down,
            fan: &fan,
        };
        sift(&items, &links, &mut order, &mut position, &mut work);
        assert_eq!(total_crossings(&down, &order, &position), 0, "{order:?}");
        assert!(work.done > 0, "sifting counts the pairs it compares");
    }

    #[test]
    fn crossing_reduction_stops_when_its_work_is_spent() {
        // The graph of the sifting test: improvement removes its 3 crossings when it may
        // work, and leaves the first order as it is when its budget is spent.
        let items: Vec<Item> = (0..8).map(|i| item(i / 4)).collect();
        let mut up = vec![Vec::new(); 8];
        let mut down = vec![Vec::new(); 8];
        for (a, b) in [(0, 7), (1, 4), (2, 5), (3, 6)] {
            down[a].push(b);
            up[b].push(a);
        }
        let first = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let mut position = vec![0; 8];
        for (limit, crossings) in [(0, 3), (u64::MAX, 0)] {
            let mut order = first.clone();
            let mut work = Work { done: 0, limit };
            let fan = vec![None; items.len()];
            let links = Links {
                up: &up,
                down: &down,
                fan: &fan,
            };
            let found = improve(&items, &links, &mut order, &mut position, &mut work);
            assert_eq!(found.0, crossings, "limit {limit}: {order:?}");
            if limit == 0 {
                assert_eq!(order, first);
                assert_eq!(work.done, 0);
            }
        }
    }
}
