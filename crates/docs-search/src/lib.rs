//! Deterministic bilingual search over a folder of Markdown pages, and safe page reads.
//!
//! [`DocsIndex`] indexes every `.md` page under a docs root (except `api/`,
//! `dist/`, `.vitepress/` and `superpowers/` at any depth, hidden folders and
//! files, and symlinks that leave the root), split into heading-delimited
//! sections. The index is built at the first search and kept up to date: each
//! search first walks the tree comparing every page's size and modification
//! time, re-reads only the pages that changed, and rebuilds the postings only
//! when something changed. On a 1,000-page tree that walk costs about 0.8 ms
//! (one `stat` per page), against about 0.15 ms for the query itself; a
//! caller that cannot afford it per query calls [`DocsIndex::refresh`] on its
//! own schedule and [`DocsIndex::search_cached`] per query.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("docs-search-doctest-{}", std::process::id()));
//! # std::fs::create_dir_all(dir.join("guide"))?;
//! # std::fs::write(dir.join("guide/log.md"), "# Logging\n\nCall `appendLog` to add a line.\n")?;
//! use botmesh_docs_search::DocsIndex;
//!
//! let docs = DocsIndex::new(&dir)?;
//! let hits = docs.search("append log", 5)?;
//! assert_eq!(hits[0].path, "guide/log.md");
//! assert_eq!(hits[0].heading, "Logging");
//! assert!(docs.page("guide/log.md")?.contains("appendLog"));
//! assert_eq!(
//!     docs.page("../secret.md").unwrap_err().to_string(),
//!     "path must stay inside the docs root: ../secret.md"
//! );
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }
//! ```
//!
//! # Ranking
//!
//! Deterministic and deliberately simple, so a result can be explained (the
//! weights are constants in one place, `index::weight`):
//! - A query and the pages are cut into words; a word's term is folded:
//!   Unicode canonical decomposition, combining marks dropped, lowercased
//!   (`Configuración` = `configuracion`, `ÁRBOL` = `arbol`).
//! - Identifiers are kept whole and also split at camelCase and snake_case
//!   boundaries: `appendLog` is indexed as `appendlog`, `append` and `log`. A
//!   query identifier also looks for its parts at half weight, and only for
//!   them when it appears nowhere.
//! - Light stemming (Snowball, English for the root's pages, Spanish for
//!   `es/`): a query word found only through its stem counts 0.7.
//! - Each distinct query word found in a section adds its inverse document
//!   frequency (BM25's, over sections): times 2 in the heading; times 1 in
//!   the body and 0.5 in code blocks, both normalised by section length as
//!   BM25 does with a term frequency of one; plus 0.5 when it is also in the
//!   page title or a heading above the section's own. Presence counts, not
//!   repetitions. English and Spanish function words (`the`, `de`) count 0.3.
//! - Bonuses: coverage (the query's total IDF times the squared share of it
//!   the section matches); heading coverage (the IDF of the words found in
//!   the heading times the share of the heading they cover); an exact phrase
//!   (all the query's words in a row: the total IDF once more); and 0.3 times
//!   the total IDF for sections in the query's locale, the locale (a
//!   top-level `es/`-like folder, or the root's) whose pages make the query's
//!   words likeliest (the root's unless another is clearly likelier), so an
//!   English or neutral query (`appendLog`) prefers the English page and a
//!   Spanish one the Spanish page of a mirrored pair.
//! - English and Spanish pages are in one index. Scores are rounded to three
//!   decimals; ties go to the smaller path, then the earlier section.
//!
//! # Dependencies
//!
//! Beyond the workspace's list:
//! - `unicode-normalization`: the unicode-rs project's canonical
//!   decomposition, needed for correct accent folding; a hand-written table
//!   would be large and go stale.
//! - `rust-stemmers`: the Snowball English and Spanish stemmers (no
//!   dependencies of its own); stemming raised the known-item evaluation
//!   (see `src/tests.rs`), and Snowball is the standard, explainable choice.

mod dict;
mod error;
mod index;
mod markdown;
mod root;
mod snippet;
mod text;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

pub use error::Error;
pub use index::IndexStats;

use index::Index;
use root::Root;

/// One search result: a section of a page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchHit {
    /// The page's path relative to the docs root, `/`-separated.
    pub path: String,
    /// The page title: front-matter `title:`, else the first H1, else the file name.
    pub title: String,
    /// The section's heading; empty for text before the page's first heading.
    pub heading: String,
    /// Plain text around the best match, at most 200 characters.
    pub snippet: String,
    /// The section's score, rounded to three decimals; higher is better.
    pub score: f64,
}

/// A search index over one docs root, refreshed at each search.
///
/// `Send + Sync`: searches from several threads take turns on an internal lock.
#[derive(Debug)]
pub struct DocsIndex {
    root: Root,
    index: Mutex<Option<Index>>,
}

impl DocsIndex {
    /// Opens the docs root; cheap: checks that `root` is a directory and
    /// indexes nothing yet.
    pub fn new(root: impl Into<PathBuf>) -> Result<DocsIndex, Error> {
        Ok(DocsIndex {
            root: Root::new(root.into())?,
            index: Mutex::new(None),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Option<Index>> {
        match self.index.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                // A panic mid-update may have left the index half-built: start over.
                self.index.clear_poison();
                let mut guard = poisoned.into_inner();
                *guard = None;
                guard
            }
        }
    }

    /// Builds the index, or brings it up to date with the tree (re-reading
    /// only changed pages). [`DocsIndex::search`] does this itself; call it to
    /// build the index ahead of the first search.
    pub fn refresh(&self) -> Result<(), Error> {
        let mut guard = self.lock();
        guard
            .get_or_insert_with(Index::default)
            .refresh(&self.root)?;
        Ok(())
    }

    /// The best `limit` sections for `query`, best first (nothing for a query
    /// without words). Builds the index on first use and picks up pages
    /// edited, added or removed since the previous search.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        let mut guard = self.lock();
        let index = guard.get_or_insert_with(Index::default);
        index.refresh(&self.root)?;
        Ok(index.search(query, limit))
    }

    /// Like [`DocsIndex::search`] but without the change check: searches the
    /// index as last built or refreshed (building it if there is none yet).
    /// For callers that call [`DocsIndex::refresh`] on their own schedule, and
    /// for measuring the ranking alone.
    pub fn search_cached(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        let mut guard = self.lock();
        let index = match guard.as_mut() {
            Some(index) => index,
            None => {
                let index = guard.insert(Index::default());
                index.refresh(&self.root)?;
                index
            }
        };
        Ok(index.search(query, limit))
    }

    /// The Markdown of the page at `path` (relative to the docs root,
    /// `/`-separated). Only `.md` pages that a search can return are served;
    /// `..` segments, absolute paths, backslashes, drive letters, NUL bytes
    /// and symlinks resolving outside the root are refused.
    pub fn page(&self, path: &str) -> Result<String, Error> {
        self.root.read_asked(path)
    }

    /// Sizes of the index as last built (all zero before the first search or refresh).
    pub fn stats(&self) -> IndexStats {
        self.lock().as_ref().map(Index::stats).unwrap_or_default()
    }
}
