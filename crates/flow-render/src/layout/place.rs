//! Coordinates across the layers.

use std::collections::BTreeSet;

use super::*;

/// The least space between two neighbours of a layer.
fn separation(a: &Item, b: &Item) -> i64 {
    let gap = if a.group != b.group {
        CLUSTER_GAP
    } else if a.is_dummy() && b.is_dummy() {
        DUMMY_SEP
    } else {
        NODE_SEP
    };
    a.right + gap + b.left
}

/// How much wider (in %) than the narrowest alignment one from the other side may be and
/// still be averaged with it: chosen on the comparison harness (0: 582,026 px in all, 10:
/// 580,376, 20: 584,568, 50: 588,489; fewer bends the larger it is, 18,099 to 17,811).
const BALANCE_SLACK: i64 = 10;

/// The least space between two neighbours of a layer drawn mirrored (`a` left of `b` in the
/// mirror image, so right of it in the picture).
fn mirrored_separation(a: &Item, b: &Item) -> i64 {
    separation(b, a)
}

/// Coordinates across the layers by Brandes and Köpf ("Fast and simple horizontal coordinate
/// assignment", 2001): four alignments (each item lined up with the median of its neighbours
/// above or below, the medians taken from the left or from the right, long edges first), each
/// packed as tight as its blocks allow, the four lined up on the narrowest, then each item at
/// the mean of its places in two of them (see [`BALANCE_SLACK`]); a last pass keeps every
/// pair of neighbours at least [`separation`] apart. Long edges come out straight, a chain's
/// nodes in one line.
pub(super) fn place(
    items: &mut [Item],
    up: &[Vec<usize>],
    down: &[Vec<usize>],
    order: &[Vec<usize>],
) {
    let mut position = vec![0usize; items.len()];
    for row in order {
        for (p, &i) in row.iter().enumerate() {
            position[i] = p;
        }
    }
    let conflicts = inner_conflicts(items, up, order, &position);
    // (x of every item, mirrored) for each of the four alignments.
    let mut layouts: Vec<(Vec<i64>, bool)> = Vec::with_capacity(4);
    for upward in [false, true] {
        for mirrored in [false, true] {
            // The layers in the order the alignment visits them, each row left to right as
            // the alignment sees it.
            let mut rows: Vec<Vec<usize>> = order.to_vec();
            if upward {
                rows.reverse();
            }
            if mirrored {
                for row in &mut rows {
                    row.reverse();
                }
            }
            let mut seen_at = vec![0usize; items.len()];
            for row in &rows {
                for (p, &i) in row.iter().enumerate() {
                    seen_at[i] = p;
                }
            }
            let neighbours = if upward { down } else { up };
            let root = align_blocks(items.len(), &rows, neighbours, &seen_at, &conflicts);
            let mut xs = compact(items, &rows, &root, mirrored);
            if mirrored {
                for x in &mut xs {
                    *x = -*x;
                }
            }
            layouts.push((xs, mirrored));
        }
    }
    // Each alignment's extent, then its width and index, narrowest first.
    let extent = |xs: &[i64]| {
        let low = (0..items.len())
            .map(|i| xs[i] - items[i].left)
            .min()
            .unwrap_or(0);
        let high = (0..items.len())
            .map(|i| xs[i] + items[i].right)
            .max()
            .unwrap_or(0);
        (low, high)
    };
    let extents: Vec<(i64, i64)> = layouts.iter().map(|(xs, _)| extent(xs)).collect();
    let mut widths: Vec<(i64, usize)> = extents
        .iter()
        .enumerate()
        .map(|(k, &(low, high))| (high - low, k))
        .collect();
    widths.sort_unstable();
    // Line the four up on the narrowest: the left ones by their left edge, the right ones by
    // their right edge.
    let narrowest = extents[widths[0].1];
    for ((xs, mirrored), &(low, high)) in layouts.iter_mut().zip(&extents) {
        let delta = if *mirrored {
            narrowest.1 - high
        } else {
            narrowest.0 - low
        };
        for x in xs.iter_mut() {
            *x += delta;
        }
    }
    // The mean of two: the narrowest, and the narrowest of the other side if it is at most
    // BALANCE_SLACK % wider (a balanced picture), else the second narrowest. Brandes and Köpf
    // take each item's median of all four, which on a long flow of branches lets the picture
    // drift sideways a column per branch (the 500-step benchmark: 9,665 px wide against 682).
    let first = widths[0];
    let second = widths
        .iter()
        .find(|&&(width, k)| {
            layouts[k].1 != layouts[first.1].1 && width * 100 <= first.0 * (100 + BALANCE_SLACK)
        })
        .unwrap_or(&widths[1]);
    let (a, b) = (&layouts[first.1].0, &layouts[second.1].0);
    for (i, item) in items.iter_mut().enumerate() {
        item.x = (a[i] + b[i]).div_euclid(2);
    }
    // The mean of two valid placements is valid; this pass only guarantees it.
    for row in order {
        for p in 1..row.len() {
            let least = items[row[p - 1]].x + separation(&items[row[p - 1]], &items[row[p]]);
            if items[row[p]].x < least {
                items[row[p]].x = least;
            }
        }
    }
}

/// The edges between two layers that cross an edge between two edge points (an inner
/// segment) and are not one themselves, as (upper, lower) pairs: an alignment never lines
/// them up, so long edges stay straight.
fn inner_conflicts(
    items: &[Item],
    up: &[Vec<usize>],
    order: &[Vec<usize>],
    position: &[usize],
) -> BTreeSet<(usize, usize)> {
    let mut conflicts = BTreeSet::new();
    for l in 1..order.len() {
        let row = &order[l];
        let above = order[l - 1].len();
        let (mut k0, mut scan) = (0usize, 0usize);
        for (i, &v) in row.iter().enumerate() {
            let inner = if items[v].is_dummy() {
                up[v].iter().copied().find(|&u| items[u].is_dummy())
            } else {
                None
            };
            if inner.is_none() && i + 1 != row.len() {
                continue;
            }
            let k1 = inner.map_or(above, |u| position[u]);
            for &lower in &row[scan..=i] {
                for &upper in &up[lower] {
                    let p = position[upper];
                    if (p < k0 || k1 < p) && !(items[upper].is_dummy() && items[lower].is_dummy()) {
                        conflicts.insert((upper.min(lower), upper.max(lower)));
                    }
                }
            }
            scan = i + 1;
            k0 = k1;
        }
    }
    conflicts
}

/// Vertical alignment: each item, row by row, joins the block of its median neighbour in the
/// previous row (of two medians the first that is free), unless that would cross an alignment
/// already made in the row or an inner segment. Returns each item's block root.
fn align_blocks(
    count: usize,
    rows: &[Vec<usize>],
    neighbours: &[Vec<usize>],
    seen_at: &[usize],
    conflicts: &BTreeSet<(usize, usize)>,
) -> Vec<usize> {
    let mut root: Vec<usize> = (0..count).collect();
    let mut align: Vec<usize> = (0..count).collect();
    let mut ws: Vec<usize> = Vec::new();
    for row in rows {
        let mut previous: Option<usize> = None;
        for &v in row {
            ws.clear();
            ws.extend(neighbours[v].iter().copied());
            if ws.is_empty() {
                continue;
            }
            ws.sort_unstable_by_key(|&w| seen_at[w]);
            let last = ws.len() - 1;
            for m in [last / 2, last.div_ceil(2)] {
                let w = ws[m];
                if align[v] == v
                    && previous.is_none_or(|p| p < seen_at[w])
                    && !conflicts.contains(&(v.min(w), v.max(w)))
                {
                    align[w] = v;
                    root[v] = root[w];
                    align[v] = root[v];
                    previous = Some(seen_at[w]);
                }
            }
        }
    }
    root
}

/// Horizontal compaction: every block as far left as the blocks left of it allow (in the
/// rows as given, mirrored or not), then pulled right towards the blocks right of it where
/// there is room. Returns each item's `x`.
fn compact(items: &[Item], rows: &[Vec<usize>], root: &[usize], mirrored: bool) -> Vec<i64> {
    let sep = |a: &Item, b: &Item| {
        if mirrored {
            mirrored_separation(a, b)
        } else {
            separation(a, b)
        }
    };
    // The block graph: root of a left neighbour -> root of its right neighbour, with the
    // space between the two.
    let mut gaps: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    for row in rows {
        for pair in row.windows(2) {
            let (u, v) = (pair[0], pair[1]);
            let gap = gaps.entry((root[u], root[v])).or_insert(i64::MIN);
            *gap = (*gap).max(sep(&items[u], &items[v]));
        }
    }
    let count = items.len();
    let mut out_edges: Vec<Vec<(usize, i64)>> = vec![Vec::new(); count];
    let mut in_edges: Vec<Vec<(usize, i64)>> = vec![Vec::new(); count];
    let mut indegree = vec![0usize; count];
    for (&(a, b), &gap) in &gaps {
        out_edges[a].push((b, gap));
        in_edges[b].push((a, gap));
        indegree[b] += 1;
    }
    let mut ready: Vec<usize> = (0..count)
        .rev()
        .filter(|&v| root[v] == v && indegree[v] == 0)
        .collect();
    let mut topological = Vec::with_capacity(count);
    while let Some(v) = ready.pop() {
        topological.push(v);
        for &(w, _) in &out_edges[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    let mut xs = vec![0i64; count];
    for &v in &topological {
        xs[v] = in_edges[v]
            .iter()
            .map(|&(u, gap)| xs[u] + gap)
            .max()
            .unwrap_or(0);
    }
    for &v in topological.iter().rev() {
        if let Some(room) = out_edges[v].iter().map(|&(w, gap)| xs[w] - gap).min() {
            xs[v] = xs[v].max(room);
        }
    }
    (0..count).map(|v| xs[root[v]]).collect()
}

/// Moves whole clusters apart across the layers, so their boxes (title included) never
/// overlap; clusters keep their left-to-right order (`group`), which every layer shares.
pub(super) fn separate_clusters(
    font: &Font,
    items: &mut [Item],
    titles: &[String],
    groups: usize,
    horizontal: bool,
) {
    let mut extent: Vec<Option<(i64, i64)>> = vec![None; groups];
    let mut flow_at = vec![0usize; groups];
    for item in items.iter() {
        flow_at[item.group] = item.flow;
        let (a, b) = (item.x - item.left, item.x + item.right);
        let e = &mut extent[item.group];
        *e = Some(e.map_or((a, b), |(x0, x1)| (x0.min(a), x1.max(b))));
    }
    let mut shift = vec![0i64; groups];
    let mut reach: Option<i64> = None;
    for g in 0..groups {
        let Some((x0, mut x1)) = extent[g] else {
            continue;
        };
        if !horizontal {
            // Across the layers is the cluster's width: room for its title.
            x1 = x1.max(x0 + font.width(&titles[flow_at[g]], LABEL_FONT));
        }
        let delta = reach.map_or(0, |r| r + CLUSTER_GAP - x0);
        shift[g] = delta;
        reach = Some(x1 + delta);
    }
    for item in items.iter_mut() {
        item.x += shift[item.group];
    }
}
