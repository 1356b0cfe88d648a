//! Text helpers of messages. How the runtime compares text (normalization, letters and digits,
//! whole words: runtime §2) is `botmesh-flow-schema`'s, shared with lint.

/// Cuts `text` to at most `max` characters, with `…` when something was cut (for messages).
pub(crate) fn short(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
