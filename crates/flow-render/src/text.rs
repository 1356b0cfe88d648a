//! Fitting text into boxes: word wrapping and the ellipsis, measured with the embedded font.

use crate::font::Font;

/// The ellipsis that ends a shortened line.
const ELLIPSIS: char = '…';

/// Splits `text` (already [`displayable`](crate::font::displayable)) into at most `max_lines`
/// lines no wider than `max_width` pixels at `size`: words wrap at spaces, a word wider than a
/// line is cut between characters, and when text is left over the last line ends with `…`.
/// An empty text gives no line.
pub(crate) fn wrap(
    font: &Font,
    text: &str,
    size: i64,
    max_width: i64,
    max_lines: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_width = 0i64;
    let space = font.width(" ", size);
    let words = text.split(' ').filter(|w| !w.is_empty());
    let mut truncated = false;
    'words: for word in words {
        let word_width = font.width(word, size);
        let gap = if line.is_empty() { 0 } else { space };
        if line_width + gap + word_width <= max_width {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
            line_width += gap + word_width;
            continue;
        }
        // The word does not fit: start a new line (or cut the word when it is too wide alone).
        if !line.is_empty() {
            if lines.len() + 1 == max_lines {
                truncated = true;
                break;
            }
            lines.push(std::mem::take(&mut line));
            line_width = 0;
        }
        if word_width <= max_width {
            line.push_str(word);
            line_width = word_width;
            continue;
        }
        for c in word.chars() {
            let w = font.width(c.encode_utf8(&mut [0; 4]), size);
            if line_width + w > max_width && !line.is_empty() {
                if lines.len() + 1 == max_lines {
                    truncated = true;
                    break 'words;
                }
                lines.push(std::mem::take(&mut line));
                line_width = 0;
            }
            line.push(c);
            line_width += w;
        }
    }
    if truncated {
        line = with_ellipsis(font, &line, size, max_width);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `line` shortened until it and `…` fit in `max_width`, then `…`.
pub(crate) fn with_ellipsis(font: &Font, line: &str, size: i64, max_width: i64) -> String {
    let mut kept: String = line.trim_end().to_owned();
    let ellipsis = font.width("…", size);
    while !kept.is_empty() && font.width(&kept, size) + ellipsis > max_width {
        kept.pop();
        let trimmed = kept.trim_end().len();
        kept.truncate(trimmed);
    }
    kept.push(ELLIPSIS);
    kept
}

/// `text` on one line: itself when it fits, else shortened with `…`.
pub(crate) fn one_line(font: &Font, text: &str, size: i64, max_width: i64) -> String {
    if font.width(text, size) <= max_width {
        text.to_owned()
    } else {
        with_ellipsis(font, text, size, max_width)
    }
}
