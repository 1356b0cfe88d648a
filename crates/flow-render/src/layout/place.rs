//! Coordinates across the layers.

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

/// Coordinates across the layers: each layer in turn is placed as near as its order allows
/// to the weighted mean of its neighbours (a weighted isotonic regression, solved exactly by
/// pooling adjacent violators), sweeping down and up; edge points weigh most, so long edges
/// stay straight.
pub(super) fn place(
    items: &mut [Item],
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    order: &[Vec<usize>],
) {
    for row in order {
        let mut x = 0;
        for (p, &i) in row.iter().enumerate() {
            if p > 0 {
                x += separation(&items[row[p - 1]], &items[i]);
            }
            items[i].x = x;
        }
    }
    for round in 0..PLACE_ROUNDS {
        let layers: Vec<usize> = if round % 2 == 0 {
            (0..order.len()).collect()
        } else {
            (0..order.len()).rev().collect()
        };
        for l in layers {
            let row = &order[l];
            let targets: Vec<(i64, i64)> = row
                .iter()
                .map(|&i| {
                    let own = items[i].x;
                    let mut weight = 1i64;
                    let mut sum = own;
                    let lists: &[&Vec<(usize, i64)>] = match round {
                        r if r + 1 == PLACE_ROUNDS => &[&up[i], &down[i]],
                        r if r % 2 == 0 => &[&up[i]],
                        _ => &[&down[i]],
                    };
                    for list in lists {
                        for &(j, w) in list.iter() {
                            weight += 16 * w;
                            sum += 16 * w * items[j].x;
                        }
                    }
                    (sum.div_euclid(weight), weight)
                })
                .collect();
            let placed = pool(
                row.iter()
                    .map(|&i| &items[i])
                    .collect::<Vec<_>>()
                    .as_slice(),
                &targets,
            );
            for (p, &i) in row.iter().enumerate() {
                items[i].x = placed[p];
            }
        }
    }
}

/// Positions for the items of one layer (in order) closest to `targets` (value, weight) in the
/// weighted least-squares sense, keeping each pair at least [`separation`] apart.
fn pool(row: &[&Item], targets: &[(i64, i64)]) -> Vec<i64> {
    let mut offsets = Vec::with_capacity(row.len());
    let mut offset = 0;
    for p in 0..row.len() {
        if p > 0 {
            offset += separation(row[p - 1], row[p]);
        }
        offsets.push(offset);
    }
    // Blocks of (weight sum, weighted target sum, count).
    let mut blocks: Vec<(i128, i128, usize)> = Vec::with_capacity(row.len());
    let value = |b: &(i128, i128, usize)| b.1.div_euclid(b.0);
    for (p, &(target, weight)) in targets.iter().enumerate() {
        let t = i128::from(target - offsets[p]);
        let w = i128::from(weight);
        blocks.push((w, w * t, 1));
        while blocks.len() > 1 {
            let last = blocks[blocks.len() - 1];
            let previous = blocks[blocks.len() - 2];
            if value(&previous) <= value(&last) {
                break;
            }
            blocks.pop();
            let merged = blocks.len() - 1;
            blocks[merged] = (
                previous.0 + last.0,
                previous.1 + last.1,
                previous.2 + last.2,
            );
        }
    }
    let mut out = Vec::with_capacity(row.len());
    for block in &blocks {
        let v = value(block) as i64;
        for _ in 0..block.2 {
            out.push(v + offsets[out.len()]);
        }
    }
    out
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
