//! The one error type of the crate; its `Display` texts are what an agent reads.

/// Why a search or a page read failed.
///
/// Every message is one lowercase sentence without a trailing period, and
/// quotes paths relative to the docs root (or the path exactly as asked),
/// never an absolute path of the machine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The docs root given to [`crate::DocsIndex::new`] is missing or not a directory.
    #[error("the docs root is not a directory")]
    RootNotDirectory,
    /// The asked page does not exist or is not one the index serves.
    #[error("page not found: {0}")]
    PageNotFound(String),
    /// The asked path is absolute (a leading `/` or `\`, or a Windows drive letter).
    #[error("path must be relative to the docs root: {0}")]
    NotRelative(String),
    /// The asked path has a `..` segment or a symlink that leaves the docs root.
    #[error("path must stay inside the docs root: {0}")]
    EscapesRoot(String),
    /// The asked path uses a backslash; paths use `/` separators.
    #[error("path must use `/` separators: {0}")]
    Backslash(String),
    /// The asked path contains a NUL byte (the path is not quoted, it is not printable).
    #[error("path must not contain a NUL byte")]
    NulByte,
    /// The asked path is empty or names a folder rather than a page.
    #[error("path must name a page: {0:?}")]
    NotAPage(String),
    /// A segment means something else on Windows: a `:` (a drive or an alternate data stream),
    /// a device name (`CON`, `NUL`, `COM1`, … whatever the extension) or a trailing dot or space
    /// (which Windows drops, so `api./x.md` would open `api/x.md`).
    #[error(
        "path must name the same page on every system (no `:`, no Windows device name such as CON or NUL, no name ending in a dot or space): {0}"
    )]
    NotPortable(String),
    /// Only Markdown pages (`.md`) are served.
    #[error("only `.md` pages can be read: {0}")]
    NotMarkdown(String),
    /// A page was asked from a character offset past its end.
    #[error("offset {offset} is past the end of the page ({total} characters)")]
    OffsetPastEnd {
        /// The offset asked, in characters.
        offset: usize,
        /// The characters of the page.
        total: usize,
    },
    /// No section of the page has the asked heading or anchor.
    #[error(
        "heading {heading:?} names no section of {path} (pass the heading or the anchor of a docs_search result)"
    )]
    SectionNotFound {
        /// The heading or anchor asked.
        heading: String,
        /// The page's path, as asked.
        path: String,
    },
    /// A page or folder under the root could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The path relative to the docs root (`.` for the root itself).
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
