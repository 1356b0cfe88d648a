//! Splitting a byte stream into lines, with a hard limit on what is buffered.

use std::io::{self, Read};
use std::ops::ControlFlow;

/// What the framer hands on for each line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line (without its `\n`, `\r\n` or a leading byte-order mark).
    Line(String),
    /// A line longer than the limit: its bytes were discarded as they arrived.
    TooLong,
    /// A line that is not valid UTF-8.
    InvalidUtf8,
}

/// Splits bytes into lines; feed it chunks with [`LineFramer::push`] and end with
/// [`LineFramer::finish`].
#[derive(Debug)]
pub struct LineFramer {
    max_chars: usize,
    buf: Vec<u8>,
    /// Characters (UTF-8 scalar values) in `buf`.
    chars: usize,
    /// True while the rest of an over-long line is being skipped.
    skipping: bool,
}

/// True for the first byte of a UTF-8 sequence (and for any non-continuation byte).
fn starts_char(byte: u8) -> bool {
    byte & 0xC0 != 0x80
}

fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| starts_char(b)).count()
}

impl LineFramer {
    /// A framer that refuses lines of more than `max_message_length` characters.
    pub fn new(max_message_length: usize) -> Self {
        LineFramer {
            max_chars: max_message_length,
            buf: Vec::new(),
            chars: 0,
            skipping: false,
        }
    }

    /// Bytes currently held for an unfinished line.
    pub fn buffered_len(&self) -> usize {
        self.buf.len()
    }

    /// Feeds one chunk; calls `on_frame` for every line it completes, in order.
    pub fn push(&mut self, mut chunk: &[u8], on_frame: &mut dyn FnMut(Frame)) {
        while !chunk.is_empty() {
            let newline = chunk.iter().position(|&b| b == b'\n');
            let (segment, rest) = match newline {
                Some(at) => (&chunk[..at], &chunk[at + 1..]),
                None => (chunk, &chunk[chunk.len()..]),
            };
            if self.skipping {
                if newline.is_some() {
                    self.skipping = false;
                }
            } else {
                let added = count_chars(segment);
                // A `\r` before the newline is stripped and does not count; a partial line may
                // still end in one, so allow one more character until its newline arrives.
                let carriage_return = segment.last().or(self.buf.last()) == Some(&b'\r');
                let allowance = usize::from(newline.is_none() || carriage_return);
                if self.chars + added > self.max_chars + allowance {
                    self.buf = Vec::new();
                    self.chars = 0;
                    self.skipping = newline.is_none();
                    on_frame(Frame::TooLong);
                } else if newline.is_some() {
                    if self.buf.is_empty() {
                        self.emit(Line::Borrowed(segment), on_frame);
                    } else {
                        // The collected line becomes the frame's text: no second copy.
                        self.buf.extend_from_slice(segment);
                        let line = std::mem::take(&mut self.buf);
                        self.emit(Line::Owned(line), on_frame);
                    }
                    self.chars = 0;
                } else {
                    self.buf.extend_from_slice(segment);
                    self.chars += added;
                }
            }
            chunk = rest;
        }
    }

    /// Ends the input: a last line without a newline is still a line.
    pub fn finish(&mut self, on_frame: &mut dyn FnMut(Frame)) {
        if !self.skipping && !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.emit(Line::Owned(line), on_frame);
        }
        self.buf = Vec::new();
        self.chars = 0;
        self.skipping = false;
    }

    fn emit(&self, line: Line<'_>, on_frame: &mut dyn FnMut(Frame)) {
        let bytes = match &line {
            Line::Borrowed(bytes) => bytes,
            Line::Owned(bytes) => bytes.as_slice(),
        };
        let end = bytes.len() - usize::from(bytes.ends_with(b"\r"));
        let start = if bytes[..end].starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let trimmed = &bytes[start..end];
        if trimmed.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if count_chars(trimmed) > self.max_chars {
            on_frame(Frame::TooLong);
            return;
        }
        let text = match line {
            Line::Borrowed(bytes) => std::str::from_utf8(&bytes[start..end])
                .map(str::to_owned)
                .ok(),
            Line::Owned(mut bytes) => {
                bytes.truncate(end);
                bytes.drain(..start);
                String::from_utf8(bytes).ok()
            }
        };
        match text {
            Some(text) => {
                tracing::trace!(line = text.as_str(), "<");
                on_frame(Frame::Line(text));
            }
            None => on_frame(Frame::InvalidUtf8),
        }
    }
}

/// A UTF-8 byte-order mark, skipped at the start of a line (and of a whole message).
pub(crate) const BOM: &[u8] = "\u{feff}".as_bytes();

/// A complete line: borrowed from the current read, or the buffer that collected it.
enum Line<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

/// Reads `reader` to the end, calling `on_frame` for every line; stops early when it returns
/// `ControlFlow::Break`.
pub fn read_frames<R: Read>(
    mut reader: R,
    max_message_length: usize,
    mut on_frame: impl FnMut(Frame) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut framer = LineFramer::new(max_message_length);
    let mut chunk = vec![0u8; 16 * 1024];
    let stop = std::cell::Cell::new(false);
    let mut forward = |frame: Frame| {
        if !stop.get() && on_frame(frame).is_break() {
            stop.set(true);
        }
    };
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        framer.push(&chunk[..read], &mut forward);
        if stop.get() {
            return Ok(());
        }
    }
    framer.finish(&mut forward);
    Ok(())
}
