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
                // A partial line may still end in a `\r` that will be stripped: allow one more.
                let allowance = if newline.is_some() { 0 } else { 1 };
                if self.chars + added > self.max_chars + allowance {
                    self.buf = Vec::new();
                    self.chars = 0;
                    self.skipping = newline.is_none();
                    on_frame(Frame::TooLong);
                } else if newline.is_some() {
                    if self.buf.is_empty() {
                        self.emit(segment, on_frame);
                    } else {
                        self.buf.extend_from_slice(segment);
                        let line = std::mem::take(&mut self.buf);
                        self.emit(&line, on_frame);
                        if line.capacity() <= 1 << 20 {
                            // Keep a small allocation for the next line; drop a large one.
                            self.buf = line;
                            self.buf.clear();
                        }
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
            self.emit(&line, on_frame);
        }
        self.buf = Vec::new();
        self.chars = 0;
        self.skipping = false;
    }

    fn emit(&self, line: &[u8], on_frame: &mut dyn FnMut(Frame)) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if count_chars(line) > self.max_chars {
            on_frame(Frame::TooLong);
            return;
        }
        match std::str::from_utf8(line) {
            Ok(text) => {
                tracing::trace!(line = text, "<");
                on_frame(Frame::Line(text.to_owned()));
            }
            Err(_) => on_frame(Frame::InvalidUtf8),
        }
    }
}

/// Reads `reader` to the end, calling `on_frame` for every line; stops early when it returns
/// `ControlFlow::Break`.
pub fn read_frames<R: Read>(
    mut reader: R,
    max_message_length: usize,
    mut on_frame: impl FnMut(Frame) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut framer = LineFramer::new(max_message_length);
    let mut chunk = vec![0u8; 64 * 1024];
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
