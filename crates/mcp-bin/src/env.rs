//! Every environment variable the binary reads, declared and read here and nowhere else
//! (`cargo xtask tidy` fails on a read elsewhere in the product): the end-to-end tests' harness
//! includes this file and clears [`Var::ALL`] from every command it runs, so the settings of
//! whoever runs the tests never reach them, and a test checks that the guides name each one.

use std::ffi::OsString;

/// Declares [`Var`], with [`Var::ALL`], [`Var::name`] and [`Var::help`] written from one list.
macro_rules! variables {
    ($($(#[doc = $doc:expr])* $variant:ident = $name:literal, $help:literal;)*) => {
        /// An environment variable the binary reads.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Var {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Var {
            /// Every variable, in declaration order.
            pub(crate) const ALL: &[Var] = &[$(Var::$variant),*];

            /// The variable's name.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Var::$variant => $name,)*
                }
            }

            /// What the variable does, as `--help` says it.
            pub(crate) fn help(self) -> &'static str {
                match self {
                    $(Var::$variant => $help,)*
                }
            }
        }
    };
}

variables! {
    /// The docs folder when `--docs` is not given.
    DocsDir = "BOTMESH_DOCS_DIR", "the docs folder when --docs is not given";
    /// The docs folder's legacy variable, read after `BOTMESH_DOCS_DIR`.
    LegacyDocsDir = "BOTWA_DOCS_DIR", "its legacy name, read after it";
    /// `0`, `false`, `no` or `off`: never offer the MCP Apps view (as `--no-ui`).
    Ui = "BOTMESH_UI", "0 (or false, no, off): never offer the MCP Apps view, as --no-ui";
    /// The log filter (`target=level,...`).
    RustLog = "RUST_LOG", "filters the logs on stderr (e.g. RUST_LOG=debug)";
    /// Set and not empty: `chat` draws without colour.
    NoColor = "NO_COLOR", "set and not empty: chat draws without colour";
    /// The terminal's width for `chat`'s bubbles.
    Columns = "COLUMNS", "the terminal's width for chat (default 80)";
    /// glibc's mmap threshold: when unset, serving HTTP re-executes the binary with it fixed.
    MmapThreshold = "MALLOC_MMAP_THRESHOLD_", "on Linux with glibc, --http sets it to 131072 when unset";
}

impl Var {
    /// The variable's value; `None` when it is not set.
    pub(crate) fn read(self) -> Option<OsString> {
        std::env::var_os(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Var;
    use std::path::Path;

    /// The text of every Markdown page under `dir`, but in its folder `skip`.
    fn pages(dir: &Path, skip: Option<&str>, into: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().and_then(|n| n.to_str()) != skip {
                    pages(&path, None, into);
                }
            } else if path.extension().is_some_and(|e| e == "md") {
                into.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }

    #[test]
    fn the_guides_name_every_variable_in_both_languages() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
        let (mut english, mut spanish) = (String::new(), String::new());
        pages(&docs, Some("es"), &mut english);
        pages(&docs.join("es"), None, &mut spanish);
        assert!(english.len() > 10_000 && spanish.len() > 10_000);
        // The name as a word of its own (`RUST_LOG`, `RUST_LOG=debug`), not inside another.
        let names = |text: &str, name: &str| {
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            text.match_indices(name).any(|(at, _)| {
                !word(text[..at].chars().next_back())
                    && !word(text[at + name.len()..].chars().next())
            })
        };
        for var in Var::ALL {
            let name = var.name();
            assert!(names(&english, name), "docs/ never names {name}");
            assert!(names(&spanish, name), "docs/es/ never names {name}");
        }
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = Var::ALL.iter().map(|var| var.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Var::ALL.len());
    }
}
