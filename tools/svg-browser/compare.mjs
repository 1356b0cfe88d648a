// How close two pictures of the same size are, in a way that forgives what differs between two
// correct rasterizers (antialiasing levels, font hinting, a glyph placed a fraction of a pixel
// apart) and catches what a person would see (a shape, an edge or a label missing or moved by
// a few pixels, other colours, another layout).
//
// Both pictures are blurred with a 3x3 box (each pixel becomes the mean of its neighbourhood,
// edges clamped), then each pixel's difference is the largest of its three channel differences
// (0 to 255). From those differences:
// - `mean`: the mean difference over the whole picture (other colours, a theme, a layout);
// - `share`: the share of pixels differing by more than `LEVEL` (most things a person sees);
// - `tile`: the largest such share in one TILE x TILE square, at any multiple of TILE / 2 (a thing
//   that is local: one label moved, one edge missing), with where that square is.
// A glyph drawn half a pixel apart differs along its strokes by about half their contrast
// before the blur and by less after it; a glyph moved by two pixels or more differs by nearly
// all of it.

/** Pixels (device pixels) per side of the squares `tile` is measured on. */
export const TILE = 16;
/** The difference (0-255, after the blur) above which a pixel counts as different. */
export const LEVEL = 64;

/**
 * Pictures are "nearly the same" when every figure is at most its limit. Measured on the nine
 * pictures of check.mjs (Chromium 156, FreeType hinting as Debian sets it): mean at most 0.69,
 * share 0.00 %, tile at most 2.7 % (at scale 1.235, where glyphs round to other pixels); a
 * label moved by one unit gives a tile of 34 %, an edge or an arrow head left out 29 % and
 * 32 %, another direction of the same size a mean of 21 and a share of 9.5 %.
 */
export const LIMITS = { mean: 2, share: 0.005, tile: 0.1 };

/**
 * The 3x3 box sums of an RGBA picture's colour channels, cropped to `width` x `height`
 * (coordinates clamped at the edges), as one Uint16Array of RGB triples (each at most 9 * 255).
 */
function boxSums(image, width, height) {
  const row = new Uint16Array(width * height * 3);
  const src = image.data;
  const stride = image.width * 4;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const left = Math.max(x - 1, 0);
      const right = Math.min(x + 1, width - 1);
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        row[o + c] = src[y * stride + left * 4 + c] + src[y * stride + x * 4 + c] + src[y * stride + right * 4 + c];
      }
    }
  }
  const out = new Uint16Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const up = Math.max(y - 1, 0) * width * 3;
    const here = y * width * 3;
    const down = Math.min(y + 1, height - 1) * width * 3;
    for (let i = 0; i < width * 3; i++) out[here + i] = row[up + i] + row[here + i] + row[down + i];
  }
  return out;
}

/**
 * Compares two decoded PNGs (`{ width, height, data: RGBA bytes }`) on their common top-left
 * `width` x `height` area. Returns `{ mean, share, tile, tileAt: [x, y] }`.
 */
export function compare(a, b, width, height) {
  const sa = boxSums(a, width, height);
  const sb = boxSums(b, width, height);
  // Counts per cell of half a tile; a tile is any 2x2 block of cells, so a small difference
  // is measured whole wherever it falls on the grid.
  const cell = TILE / 2;
  const cellsX = Math.ceil(width / cell);
  const cellsY = Math.ceil(height / cell);
  const over = new Uint32Array(cellsX * cellsY);
  const level = LEVEL * 9;
  let total = 0;
  let count = 0;
  for (let y = 0; y < height; y++) {
    const rowCells = Math.floor(y / cell) * cellsX;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const d = Math.max(Math.abs(sa[o] - sb[o]), Math.abs(sa[o + 1] - sb[o + 1]), Math.abs(sa[o + 2] - sb[o + 2]));
      total += d;
      const k = rowCells + Math.floor(x / cell);
      if (d > level) {
        count++;
        over[k]++;
      }
    }
  }
  let tile = 0;
  let tileAt = [0, 0];
  for (let cy = 0; cy < Math.max(cellsY - 1, 1); cy++) {
    for (let cx = 0; cx < Math.max(cellsX - 1, 1); cx++) {
      let n = 0;
      let area = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
        if (cx + dx >= cellsX || cy + dy >= cellsY) continue;
        const k = (cy + dy) * cellsX + cx + dx;
        n += over[k];
        // A cell cut by the right or bottom edge counts on its own area.
        area += Math.min(cell, width - (cx + dx) * cell) * Math.min(cell, height - (cy + dy) * cell);
      }
      if (n / area > tile) {
        tile = n / area;
        tileAt = [cx * cell, cy * cell];
      }
    }
  }
  const pixels = width * height;
  return { mean: total / 9 / pixels, share: count / pixels, tile, tileAt };
}

/** The names of the figures of `compare` over their limit (none: nearly the same pictures). */
export function failures(figures, limits = LIMITS) {
  return Object.keys(limits).filter((key) => !(figures[key] <= limits[key]));
}
