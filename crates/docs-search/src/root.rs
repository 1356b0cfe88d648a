//! The one reader of the crate: every file access is confined to the docs root here.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use crate::Error;

/// Folder names never indexed nor served, at any depth: generated output, internal notes and
/// contributors' specifications (this project's `docs/spec/`, the contracts the code follows:
/// the reference pages say the same for a reader, and served, the spec's sections took first
/// place from them on known-item queries).
pub(crate) const EXCLUDED_DIRS: [&str; 5] = ["api", "dist", ".vitepress", "superpowers", "spec"];

/// What the change check compares: a page is re-read when its stamp differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            modified: meta.modified().ok(),
            len: meta.len(),
        }
    }
}

/// A page found by [`Root::scan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The path relative to the root, `/`-separated.
    pub(crate) rel: String,
    /// The page's size and modification time.
    pub(crate) stamp: Stamp,
}

/// Whether a folder of this name is skipped (hidden or excluded). Excluded names match in any
/// case: on Windows and macOS `API/` is the `api/` folder.
fn skipped_dir(name: &str) -> bool {
    name.starts_with('.') || excluded(name)
}

fn excluded(name: &str) -> bool {
    EXCLUDED_DIRS
        .iter()
        .any(|excluded| excluded.eq_ignore_ascii_case(name))
}

/// Whether one path segment names the same file on every system. Refused: a `:` (a drive, or a
/// Windows alternate data stream such as `index.md::$DATA`), a trailing dot or space (Windows
/// drops them, so `api./x.md` would open `api/x.md`), and Windows device names (`CON`, `PRN`,
/// `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, with any extension and in any case: `nul.md`
/// opens the null device there).
fn portable_segment(segment: &str) -> bool {
    if segment.contains(':') || segment.ends_with('.') || segment.ends_with(' ') {
        return false;
    }
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    let device = match upper.as_bytes() {
        b"CON" | b"PRN" | b"AUX" | b"NUL" => true,
        [b'C', b'O', b'M', digit] | [b'L', b'P', b'T', digit] => digit.is_ascii_digit(),
        _ => ["COM", "LPT"].iter().any(|prefix| {
            upper
                .strip_prefix(prefix)
                .is_some_and(|rest| ["¹", "²", "³"].contains(&rest))
        }),
    };
    !device
}

/// Whether a `/`-separated relative page path is one the index serves:
/// no hidden segment, no excluded folder, a `.md` name.
fn servable(rel: &str) -> bool {
    let mut segments = rel.split('/').peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        if segment.is_empty() || segment.starts_with('.') || !portable_segment(segment) {
            return false;
        }
        if !last && excluded(segment) {
            return false;
        }
        if last && !segment.ends_with(".md") {
            return false;
        }
    }
    true
}

/// What one walk of the tree found.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Every servable page, sorted by relative path.
    pub(crate) pages: Vec<Listed>,
    /// Every folder the walk read (the root first), and the folder holding
    /// the real file of every symlinked page: the folders whose changes can
    /// change the index.
    pub(crate) dirs: Vec<PathBuf>,
}

/// The docs root: the folder as given and its canonical form.
#[derive(Debug)]
pub(crate) struct Root {
    dir: PathBuf,
    canonical: PathBuf,
}

impl Root {
    /// Checks that `dir` is a directory.
    pub(crate) fn new(dir: PathBuf) -> Result<Root, Error> {
        let canonical = fs::canonicalize(&dir).map_err(|_| Error::RootNotDirectory)?;
        if !canonical.is_dir() {
            return Err(Error::RootNotDirectory);
        }
        Ok(Root { dir, canonical })
    }

    /// The canonical target's path relative to the root, if it stays inside.
    fn inside(&self, target: &Path) -> Option<String> {
        let rel = target.strip_prefix(&self.canonical).ok()?;
        let mut out = String::new();
        for component in rel.components() {
            let Component::Normal(name) = component else {
                return None;
            };
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(name.to_str()?);
        }
        Some(out)
    }

    /// Every servable page under the root, sorted by relative path.
    ///
    /// Hidden and excluded folders are not entered; a symlinked file is
    /// listed when its target is a servable page inside the root; symlinked
    /// folders are not followed (their targets inside the root are listed
    /// under their own path already, and this rules out cycles). Unreadable
    /// subfolders are skipped with a warning; an unreadable root is an error.
    pub(crate) fn scan(&self) -> Result<Scan, Error> {
        let mut out = Vec::new();
        let mut dirs = Vec::new();
        let mut stack = vec![(self.dir.clone(), String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(source) if prefix.is_empty() => {
                    return Err(Error::Io {
                        path: ".".to_owned(),
                        source,
                    });
                }
                Err(error) => {
                    tracing::warn!(folder = %prefix, %error, "skipping an unreadable docs folder");
                    continue;
                }
            };
            dirs.push(dir);
            for entry in entries.flatten() {
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let rel = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}/{name}")
                };
                if kind.is_dir() {
                    if !skipped_dir(&name) {
                        stack.push((entry.path(), rel));
                    }
                } else if kind.is_file() {
                    if servable(&rel)
                        && let Ok(meta) = entry.metadata()
                    {
                        out.push(Listed {
                            rel,
                            stamp: Stamp::of(&meta),
                        });
                    }
                } else if kind.is_symlink() && servable(&rel) {
                    let path = entry.path();
                    let Ok(target) = fs::canonicalize(&path) else {
                        continue;
                    };
                    let Some(target_rel) = self.inside(&target) else {
                        continue;
                    };
                    if let Ok(meta) = fs::metadata(&target)
                        && meta.is_file()
                        && servable(&target_rel)
                    {
                        out.push(Listed {
                            rel,
                            stamp: Stamp::of(&meta),
                        });
                        // Named from the root as given, like the walked folders, so one
                        // folder is never listed under two spellings.
                        dirs.push(match target_rel.rsplit_once('/') {
                            Some((parent, _)) => self.dir.join(parent),
                            None => self.dir.clone(),
                        });
                    }
                }
            }
        }
        out.sort_by(|a, b| a.rel.cmp(&b.rel));
        dirs.sort();
        dirs.dedup();
        Ok(Scan { pages: out, dirs })
    }

    /// Reads a page listed by [`Root::scan`] (invalid UTF-8 is replaced).
    ///
    /// The path is resolved again at read time: a page swapped for a symlink leaving the root
    /// after the scan is refused, not indexed.
    pub(crate) fn read_listed(&self, rel: &str) -> Result<String, Error> {
        let io_error = |source| Error::Io {
            path: rel.to_owned(),
            source,
        };
        let target = fs::canonicalize(self.dir.join(rel)).map_err(io_error)?;
        if self.inside(&target).is_none() {
            return Err(Error::EscapesRoot(rel.to_owned()));
        }
        read_lossy(&target).map_err(io_error)
    }

    /// Reads the page `asked` names, refusing anything that is not a
    /// servable `.md` page inside the root.
    pub(crate) fn read_asked(&self, asked: &str) -> Result<String, Error> {
        if asked.contains('\0') {
            return Err(Error::NulByte);
        }
        // Absolute in any spelling (`/x`, `\x`, `\\server\share\x`, `C:\x`, `C:/x`, `c:x`)
        // before backslashes, so a Windows path gets the error that explains it.
        let bytes = asked.as_bytes();
        let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if asked.starts_with(['/', '\\']) || drive {
            return Err(Error::NotRelative(asked.to_owned()));
        }
        if asked.contains('\\') {
            return Err(Error::Backslash(asked.to_owned()));
        }
        let mut segments = Vec::new();
        for segment in asked.split('/') {
            match segment {
                ".." => return Err(Error::EscapesRoot(asked.to_owned())),
                "" | "." => {}
                other => segments.push(other),
            }
        }
        let Some(last) = segments.last() else {
            return Err(Error::NotAPage(asked.to_owned()));
        };
        if !segments.iter().all(|segment| portable_segment(segment)) {
            return Err(Error::NotPortable(asked.to_owned()));
        }
        if !last.ends_with(".md") {
            return Err(Error::NotMarkdown(asked.to_owned()));
        }
        let rel = segments.join("/");
        if !servable(&rel) {
            return Err(Error::PageNotFound(asked.to_owned()));
        }
        let path = self.dir.join(&rel);
        let target = match fs::canonicalize(&path) {
            Ok(target) => target,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(Error::PageNotFound(asked.to_owned()));
            }
            Err(source) => return Err(Error::Io { path: rel, source }),
        };
        let Some(target_rel) = self.inside(&target) else {
            return Err(Error::EscapesRoot(asked.to_owned()));
        };
        if !servable(&target_rel) || !target.is_file() {
            return Err(Error::PageNotFound(asked.to_owned()));
        }
        read_lossy(&target).map_err(|source| Error::Io { path: rel, source })
    }
}

/// Reads a file as text, replacing invalid UTF-8.
fn read_lossy(path: &Path) -> io::Result<String> {
    let bytes = fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_reference_names_every_excluded_folder() {
        for page in ["docs/reference/tools.md", "docs/es/reference/tools.md"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(page);
            let text = fs::read_to_string(path).unwrap();
            for name in EXCLUDED_DIRS {
                assert!(
                    text.contains(&format!("`{name}/`")),
                    "{page} does not name `{name}/`"
                );
            }
        }
    }

    #[test]
    fn servable_paths() {
        assert!(servable("index.md"));
        assert!(servable("es/guide/api-keys.md"));
        assert!(servable("guide/api.md"));
        assert!(!servable("api/index.md"));
        assert!(!servable("es/api/x.md"));
        assert!(!servable("a/b/superpowers/x.md"));
        assert!(!servable("es/.vitepress/config.md"));
        assert!(!servable(".hidden/x.md"));
        assert!(!servable("guide/.draft.md"));
        assert!(!servable("guide/x.txt"));
        assert!(!servable("dist/x.md"));
        assert!(!servable("API/x.md"), "excluded folders match in any case");
        assert!(!servable("es/Dist/x.md"));
        assert!(!servable("a/SuperPowers/plans/x.md"));
        assert!(!servable("spec/flow-document.md"));
        assert!(servable("guide/spec.md"));
    }

    #[test]
    fn windows_names_are_not_portable() {
        for name in [
            "CON.md",
            "con.md",
            "nul.md",
            "Nul",
            "COM1.md",
            "com9.txt.md",
            "LPT1",
            "aux.md",
            "PRN.md",
            "CON .md",
            "COM¹.md",
            "lpt³.md",
            "index.md:x",
            "index.md::$DATA",
            "C:",
            "index.md.",
            "index.md ",
            "api.",
            "guide ",
        ] {
            assert!(!portable_segment(name), "{name:?} passed");
        }
        for name in [
            "index.md",
            "console.md",
            "nullable.md",
            "com.md",
            "COM10.md",
            "auxiliary.md",
            "lpt.md",
            "a.b.md",
            "GETTIN~1.MD",
            "my page.md",
        ] {
            assert!(portable_segment(name), "{name:?} refused");
        }
        assert!(!servable("guide/aux.md"));
        assert!(!servable("CON.md"));
        assert!(!servable("api./x.md"));
    }

    /// An absolute path is refused as such in every spelling, Windows' included, before
    /// anything is read (and before the backslash rule, whose message would mislead).
    #[test]
    fn absolute_paths_in_every_spelling_are_not_relative() {
        let root = Root::new(std::env::temp_dir()).unwrap();
        for asked in [
            "/etc/passwd",
            "//server/share/x.md",
            "\\x.md",
            "\\\\server\\share\\x.md",
            "\\\\?\\C:\\docs\\x.md",
            "C:\\docs\\x.md",
            "C:/docs/x.md",
            "c:x.md",
        ] {
            let error = root.read_asked(asked).unwrap_err().to_string();
            assert_eq!(
                error,
                format!("path must be relative to the docs root: {asked}")
            );
        }
        assert_eq!(
            root.read_asked("guide\\x.md").unwrap_err().to_string(),
            "path must use `/` separators: guide\\x.md"
        );
    }
}
