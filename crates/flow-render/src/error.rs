//! The errors of this crate: drawing a laid-out picture can fail only at the PNG step.

/// Why a picture could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The embedded font could not be read (a build problem, tested).
    #[error("the embedded font could not be read")]
    Font,
    /// The picture is larger than a PNG this crate will allocate.
    #[error("the picture is too large for a PNG ({width}x{height} pixels)")]
    TooLarge {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("the PNG could not be encoded: {0}")]
    Png(String),
}
