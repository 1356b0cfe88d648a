//! Deterministic bilingual search over a folder of Markdown pages, and safe page reads.
//!
//! [`DocsIndex`] indexes every `.md` page under a docs root (except `api/`,
//! `dist/`, `.vitepress/`, `superpowers/` and `spec/` at any depth, hidden folders and
//! files, and symlinks that leave the root), split into heading-delimited
//! sections. A heading that a page repeats under each of its entries (`Usage`
//! under each component of a component list, `Parameters` and `Returns` under
//! each function, `Fixes` under each release) names a part of the entry, not a
//! topic: such a section, right under its entry (or under other parts of it),
//! is searched and read as part of the entry, so a result names the entry
//! (`RenderWhen`), never an anonymous `Usage`. The index is built at the first
//! search and kept up to date with a cheap change check at each search:
//! - On Linux, every folder the walk reads is watched with inotify, and the
//!   pending events are read (without blocking) at each search. The kernel
//!   queues an event before the editing process's write, rename or delete
//!   returns, so **a page edited, added, removed or renamed before a search
//!   began is reflected in that search** on local filesystems. No event
//!   pending: no walk, one `read` per search (a search costs the query alone,
//!   about 0.15 ms on a 1,000-page tree). An event about a page or a folder:
//!   the search first walks the tree comparing every page's size and
//!   modification time (a `stat` per page, about 0.9 ms on 1,000 pages),
//!   re-reads only the pages that changed, rebuilds the postings, and watches
//!   new folders. Events in excluded or hidden folders and about files that
//!   are no pages (editors' swap files) cause no walk.
//! - Filesystems that deliver no events (NFS, 9p or WSL's `/mnt/c`, some
//!   container mounts) are covered by also walking when the last walk is
//!   a second old or more (`watch::WALK_INTERVAL`): there, a change shows
//!   **within about a second** (at the first search a second or more after
//!   the previous walk).
//! - Where inotify is unavailable (another OS, `inotify_init` failing, a
//!   watch refused, e.g. past `fs.inotify.max_user_watches`: a warning is
//!   logged once), every search walks the tree, as exact as the watcher and
//!   about 0.9 ms slower per search on 1,000 pages.
//!
//! [`DocsIndex::search_cached`] skips the check (the query alone);
//! [`DocsIndex::refresh`] walks whatever the check says.
//!
//! Building (or re-reading 16 pages or more) reads and parses the pages on a
//! short-lived helper thread while the calling thread turns the previous
//! page into terms, in page order, so the index is the same as a one-thread
//! build's; warnings about unreadable pages are then logged from that thread.
//! A page the Markdown parser panics on (pulldown-cmark does on rare inputs)
//! is parsed again without definition lists, then as plain text, with a
//! warning: one odd page never makes the tree's searches fail.
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
//! weights are constants in one place, `index::WEIGHTS`):
//! - A query and the pages are cut into words; a word's term is folded:
//!   Unicode canonical decomposition, combining marks dropped, lowercased
//!   (`Configuración` = `configuracion`, `ÁRBOL` = `arbol`).
//! - Identifiers are kept whole and also split at camelCase and snake_case
//!   boundaries: `appendLog` is indexed as `appendlog`, `append` and `log`. A
//!   name with a version number also stands for the name (`Jinja2Templates`:
//!   `jinja`, `templates`; `oauth2`: `oauth`). A query identifier also looks
//!   for its parts at half weight, and only for them when it appears nowhere.
//!   In code an identifier is indexed whole only: its parts made plain
//!   questions (`change the port`) match API code full of names built from
//!   the same words (`devServerPort`).
//! - Light stemming (Snowball, English for the root's pages, Spanish for
//!   `es/`): occurrences of words sharing a query word's stem count half an
//!   occurrence, and the word then weighs the IDF of its stem class. Stems
//!   are computed from the accented spelling (Snowball's Spanish rules need
//!   the accents: `configuración` stems to `configur`), and a query word
//!   typed without accents takes the stem of its indexed spelling, so
//!   `configuracion` finds `configurar` as `configuración` does.
//! - Each section is scored with BM25F over four fields: heading (weight 3),
//!   body (1), code (0.5: code blocks, and paragraphs that only include a
//!   code file, such as VitePress `<<< @/snippets/x.json` or mdBook
//!   `{{#include x.rs}}`, and mkdocstrings directives such as
//!   `::: fastapi.WebSocket` with their options) and context (1: the page
//!   title and the headings above the section's). A query word's frequency
//!   in each field is length-normalised per field (`b` 0.5, 0.9, 0.75,
//!   0.5), weighted, summed, then saturated (`k1` 1.2) and multiplied by the
//!   word's inverse document frequency (BM25's, over sections). English and Spanish
//!   function words (`the`, `de`) weigh 0.3, an identifier's parts 0.5.
//! - Bonuses: coverage (the total IDF of the query's words, function words
//!   aside, times the squared share of it the section matches, over a length
//!   normalisation with `b` 0.3 over the section's words in heading, body and
//!   code: a long section holds more of a question's words by chance, so a
//!   short reference section holding as many is not buried under it); heading
//!   coverage (the IDF of the words found in the heading times the share of
//!   the heading they cover); an exact phrase
//!   (all the query's words in a row: the total IDF once more); an example
//!   (0.3 times the IDF of the query words a section holds, when it has
//!   code: a question about a task is more often answered by the section
//!   that shows how); and 0.3 times the total IDF for sections in the
//!   query's locale, the locale (a top-level `es/`-like folder, or the
//!   root's) whose pages make the query's words likeliest (the root's unless
//!   another is clearly likelier), so an English or neutral query
//!   (`appendLog`) prefers the English page and a Spanish one the Spanish
//!   page of a mirrored pair.
//! - Neighbours: a section then gets 0.1 times the score (bonuses included,
//!   the exact phrase's aside) of the better of the sections just before
//!   and just after it on the same page, as they were before this step: a
//!   question's words are often spread over neighbours (the problem told in
//!   one section, the fix shown in the next).
//! - Measured: `cargo xtask docs-eval` runs the three evaluations vendored in
//!   `eval/` (FastAPI, React and Slidev docs, each English and Spanish, 90
//!   known-item queries each; Slidev's has 34 plain questions whose answer is
//!   a short section named by an identifier) against the release binary, and
//!   beside a plain BM25; the first weights were tuned on the FastAPI set's
//!   odd-numbered queries and on the project's own known items
//!   (`src/tests.rs`). A change is kept only if, on every set, the English
//!   and the Spanish half stay at least BM25 (MRR@10 of all queries, of the
//!   natural-language ones and of the `ref-section` ones), it does not cost
//!   the known items their floors, and its reason holds for any docs tree.
//!   The figures behind each weight, and every experiment measured and left
//!   out, are in DECISIONS.md ("Docs search: the ranking").
//! - English and Spanish pages are in one index. Scores are rounded to three
//!   decimals; ties go to the smaller path, then the earlier section.
//!
//! # Dependencies
//!
//! Beyond the workspace's list:
//! - `rustc-hash` (workspace): the Fx hash of rustc, for the word maps
//!   (fast on short keys; the keys are the docs' own words, so flooding is
//!   not a concern).
//! - `unicode-normalization`: the unicode-rs project's canonical
//!   decomposition, needed for correct accent folding; a hand-written table
//!   would be large and go stale.
//! - `rust-stemmers`: the Snowball English and Spanish stemmers (no
//!   dependencies of its own); stemming raised the known-item evaluation
//!   (see `src/tests.rs`), and Snowball is the standard, explainable choice.
//! - `inotify` (Linux only, default features off: no tokio or futures): a
//!   thin, well-kept wrapper of the inotify system calls, so the change check
//!   reads one queue per search instead of a `stat` per page, without
//!   `unsafe` code of our own.

mod dict;
mod error;
mod index;
mod markdown;
mod root;
mod slice;
mod snippet;
mod text;
mod watch;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

pub use error::Error;
pub use index::IndexStats;
pub use slice::{PageSlice, slice_page};

use index::Index;
use root::Root;
use watch::{ChangeCheck, Mode};

/// One search result: a section of a page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchHit {
    /// The page's path relative to the docs root, `/`-separated.
    pub path: String,
    /// The page title: front-matter `title:`, else the first H1, else the file name.
    pub title: String,
    /// The section's heading; empty for text before the page's first heading.
    pub heading: String,
    /// The section's anchor, unique in its page: the heading's own (`{ #id }`,
    /// `{/*id*/}`), else a GitHub-style slug of it, `-1`, `-2`, ... added to
    /// repeats; empty for text before the first heading. [`DocsIndex::section`]
    /// reads the section by it.
    pub anchor: String,
    /// Plain text around the best match, at most 200 characters.
    pub snippet: String,
    /// The section's score, rounded to three decimals; higher is better.
    pub score: f64,
    /// The same section in the other languages' copies of the page (a page of
    /// the same path under another locale folder, such as `es/`), folded into
    /// this result; omitted when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<Mirror>,
}

/// The copy of a section in another language's page (see [`SearchHit::mirrors`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mirror {
    /// The page's path relative to the docs root, `/`-separated.
    pub path: String,
    /// The section's heading there.
    pub heading: String,
    /// The section's anchor there.
    pub anchor: String,
}

/// One section of a page, as [`DocsIndex::section`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSection {
    /// The section's heading (plain text; empty for the text before the first heading).
    pub heading: String,
    /// The section's anchor (see [`SearchHit::anchor`]).
    pub anchor: String,
    /// The headings from the top of the page down to the section's own, included
    /// (empty for the text before the first heading).
    pub heading_path: Vec<String>,
    /// The section's Markdown: its heading line, then everything up to the next heading.
    pub markdown: String,
}

/// A search index over one docs root, kept up to date with the tree.
///
/// `Send + Sync`: searches from several threads take turns on an internal lock.
#[derive(Debug)]
pub struct DocsIndex {
    root: Root,
    state: Mutex<State>,
}

/// What the lock guards: the index and the change check that keeps it fresh.
#[derive(Debug)]
struct State {
    /// `None` until the first search or refresh.
    index: Option<Index>,
    check: ChangeCheck,
}

impl State {
    /// Walks the tree and brings the index up to date with it.
    fn walk(&mut self, root: &Root) -> Result<&mut Index, Error> {
        let started = Instant::now();
        let scan = root.scan()?;
        let index = self.index.get_or_insert_with(Index::default);
        index.refresh(root, &scan.pages);
        self.check.walked(started, &scan.dirs);
        Ok(index)
    }

    /// The index, built if there is none yet, and brought up to date first
    /// when `check` is set and the change check asks for a walk.
    fn index(&mut self, root: &Root, check: bool) -> Result<&mut Index, Error> {
        if self.index.is_none() || (check && self.check.walk_due(Instant::now())) {
            self.walk(root)
        } else {
            Ok(self.index.get_or_insert_with(Index::default))
        }
    }
}

impl DocsIndex {
    /// Opens the docs root; cheap: checks that `root` is a directory and
    /// indexes nothing yet.
    pub fn new(root: impl Into<PathBuf>) -> Result<DocsIndex, Error> {
        DocsIndex::with_mode(root.into(), Mode::Watch)
    }

    /// [`DocsIndex::new`] with the change check in `mode` (tests force the walk).
    pub(crate) fn with_mode(root: PathBuf, mode: Mode) -> Result<DocsIndex, Error> {
        Ok(DocsIndex {
            root: Root::new(root)?,
            state: Mutex::new(State {
                index: None,
                check: ChangeCheck::new(mode),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                // A panic mid-update may have left the index half-built: start over.
                self.state.clear_poison();
                let mut guard = poisoned.into_inner();
                guard.index = None;
                guard
            }
        }
    }

    /// Builds the index, or brings it up to date with the tree (a walk that
    /// re-reads only changed pages), whatever the change check says.
    /// [`DocsIndex::search`] builds the index itself; call this to build it
    /// ahead of the first search.
    pub fn refresh(&self) -> Result<(), Error> {
        self.lock().walk(&self.root)?;
        Ok(())
    }

    /// The best `limit` sections for `query`, best first (nothing for a query
    /// without words). Builds the index on first use and picks up pages
    /// edited, added or removed before the search began (see the crate docs
    /// for how, and for filesystems that report no changes).
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        Ok(self.lock().index(&self.root, true)?.search(query, limit))
    }

    /// Like [`DocsIndex::search`] but without the change check: searches the
    /// index as last built or refreshed (building it if there is none yet).
    /// For measuring the ranking alone.
    pub fn search_cached(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        Ok(self.lock().index(&self.root, false)?.search(query, limit))
    }

    /// The Markdown of the page at `path` (relative to the docs root,
    /// `/`-separated). Only `.md` pages that a search can return are served;
    /// `..` segments, absolute paths, backslashes, drive letters, NUL bytes
    /// and symlinks resolving outside the root are refused.
    pub fn page(&self, path: &str) -> Result<String, Error> {
        self.root.read_asked(path)
    }

    /// One section of the page at `path` (read as [`DocsIndex::page`] reads
    /// it), named by its anchor or its heading text as a search result gives
    /// them: `heading` is compared with the anchors first (a leading `#` is
    /// ignored), then with the headings' text (case and runs of spaces aside);
    /// the first section in page order that matches is returned. An empty
    /// `heading` names the text before the page's first heading.
    ///
    /// The section runs from its heading line to the next heading of any
    /// level, with the parts of its entry that follow it (a heading the page
    /// repeats under each entry, such as `Usage`; see the crate docs), as
    /// the search ranked it; a part named by its own anchor is read alone.
    /// Its heading path names the headings above it.
    pub fn section(&self, path: &str, heading: &str) -> Result<PageSection, Error> {
        let source = self.root.read_asked(path)?;
        let (parsed, _) = markdown::parse_safely(&source);
        let wanted = heading.trim();
        let wanted = wanted.strip_prefix('#').unwrap_or(wanted).trim();
        let wanted_norm = markdown::heading_key(wanted);
        let sections = &parsed.sections;
        let found = sections
            .iter()
            .position(|s| s.anchor == wanted)
            .or_else(|| {
                sections
                    .iter()
                    .position(|s| s.anchor.eq_ignore_ascii_case(wanted))
            })
            .or_else(|| {
                sections
                    .iter()
                    .position(|s| markdown::heading_key(&s.heading) == wanted_norm)
            })
            .ok_or_else(|| Error::SectionNotFound {
                heading: heading.to_owned(),
                path: path.to_owned(),
            })?;
        let section = &sections[found];
        // An entry is read with its parts (as it was searched); a part asked for alone, alone.
        let end = sections[found + 1..]
            .iter()
            .find(|next| section.part || !next.part)
            .map_or(source.len(), |next| next.start);
        let mut heading_path: Vec<String> = Vec::new();
        let mut level = section.level;
        for above in sections[..found].iter().rev() {
            if above.level > 0 && above.level < level {
                heading_path.push(above.heading.clone());
                level = above.level;
            }
        }
        heading_path.reverse();
        if section.level > 0 {
            heading_path.push(section.heading.clone());
        }
        Ok(PageSection {
            heading: section.heading.clone(),
            anchor: section.anchor.clone(),
            heading_path,
            markdown: source
                .get(section.start..end)
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// Sizes of the index as last built (all zero before the first search or refresh).
    pub fn stats(&self) -> IndexStats {
        self.lock()
            .index
            .as_ref()
            .map(Index::stats)
            .unwrap_or_default()
    }

    /// Whether the folders are watched for changes (else every search walks).
    #[cfg(test)]
    pub(crate) fn watching(&self) -> bool {
        self.lock().check.watching()
    }

    /// Number of walks of the tree so far.
    #[cfg(test)]
    pub(crate) fn walks(&self) -> u64 {
        self.lock().check.walks()
    }

    /// Sets the change check's safety-net interval.
    #[cfg(test)]
    pub(crate) fn set_walk_interval(&self, interval: std::time::Duration) {
        self.lock().check.set_interval(interval);
    }
}
