//! Reading a page in parts: a window of characters cut on line boundaries.

use crate::Error;

/// A part of a page's text, as [`slice_page`] cuts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSlice<'a> {
    /// The text of the part.
    pub text: &'a str,
    /// Where the part starts, in characters from the start of the page.
    pub offset: usize,
    /// The characters of the whole page.
    pub total: usize,
    /// Where the rest starts, when the part ends before the page does.
    pub next: Option<usize>,
}

/// The part of `page` that starts at character `offset` and holds at most `length` characters,
/// ending at a line boundary.
///
/// The part starts exactly at `offset` (the `next` of a previous part is always a line start,
/// unless that part had to cut one over-long line). It ends after the last whole line that fits; a single line longer than `length` is cut inside, after exactly
/// `length` characters, so every call makes progress. Reading from `next` until it is `None`
/// returns every character of the page once. An `offset` past the end is an error; an `offset`
/// equal to the page's length gives an empty part.
pub fn slice_page(page: &str, offset: usize, length: usize) -> Result<PageSlice<'_>, Error> {
    let total = page.chars().count();
    if offset > total {
        return Err(Error::OffsetPastEnd { offset, total });
    }
    let length = length.max(1);
    // Byte position of character `offset`.
    let asked = page
        .char_indices()
        .nth(offset)
        .map_or(page.len(), |(byte, _)| byte);
    let start = offset;
    let rest = &page[asked..];
    let Some((limit_byte, _)) = rest.char_indices().nth(length) else {
        return Ok(PageSlice {
            text: rest,
            offset: start,
            total,
            next: None,
        });
    };
    let end_byte = rest[..limit_byte]
        .rfind('\n')
        .map_or(limit_byte, |newline| newline + 1);
    let text = &rest[..end_byte];
    Ok(PageSlice {
        text,
        offset: start,
        total,
        next: Some(start + text.chars().count()),
    })
}

#[cfg(test)]
mod tests;
