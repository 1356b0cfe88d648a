//! The change check: decides at each search whether the tree must be walked again.
//!
//! On Linux the folders of the last walk are watched with inotify. The
//! kernel queues an event before the system call that caused it returns, and
//! the queue is read (without blocking) at each search under the index lock,
//! so a change finished before a search began is always seen by that search:
//! no event pending means no walk, one `read` per search. Any event about a
//! page or a folder (or a queue overflow) makes the search walk the tree
//! (a `stat` per page, re-reading only changed pages) and re-sync the watches.
//!
//! A walk also runs when the last one is older than [`WALK_INTERVAL`], for
//! filesystems that deliver no events (NFS, 9p, some container mounts). When
//! inotify is unavailable (another OS, `inotify_init` failing, a watch that
//! cannot be added, e.g. past `max_user_watches`), every search walks.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The longest the index goes without a walk while searches come in, even
/// when the watcher reports nothing: the freshness bound on filesystems that
/// deliver no change events.
pub(crate) const WALK_INTERVAL: Duration = Duration::from_secs(1);

/// How a [`ChangeCheck`] learns about changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Watch the folders where the platform allows it, else walk per search.
    Watch,
    /// Walk the tree at every search (the fallback, forced).
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "tests force the fallback to exercise it")
    )]
    Walk,
}

/// Whether the next search must walk the tree, and the watches that tell.
#[derive(Debug)]
pub(crate) struct ChangeCheck {
    /// `None`: walk at every search.
    watcher: Option<imp::Watcher>,
    /// When the last walk started.
    last_walk: Option<Instant>,
    /// A walk is due whatever the watcher says: a folder was watched only
    /// after the walk that found it, so a change in between must be looked for.
    due: bool,
    /// See [`WALK_INTERVAL`] (longer in some tests).
    interval: Duration,
    /// Walks recorded so far (tests check that a quiet tree is not walked).
    walks: u64,
}

impl ChangeCheck {
    /// A change check in `mode`; falls back to walking when the watcher cannot start.
    pub(crate) fn new(mode: Mode) -> ChangeCheck {
        let watcher = match mode {
            Mode::Watch => imp::Watcher::new(),
            Mode::Walk => None,
        };
        ChangeCheck {
            watcher,
            last_walk: None,
            due: true,
            interval: WALK_INTERVAL,
            walks: 0,
        }
    }

    /// Whether the folders are watched (else every search walks).
    #[cfg(test)]
    pub(crate) fn watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Number of walks so far.
    #[cfg(test)]
    pub(crate) fn walks(&self) -> u64 {
        self.walks
    }

    /// Sets the safety-net interval (tests that count walks make it long).
    #[cfg(test)]
    pub(crate) fn set_interval(&mut self, interval: Duration) {
        self.interval = interval;
    }

    /// Whether a search starting at `now` must walk the tree first. Reads the
    /// pending events (they are consumed: call [`ChangeCheck::walked`] after
    /// the walk this asks for).
    pub(crate) fn walk_due(&mut self, now: Instant) -> bool {
        let Some(watcher) = self.watcher.as_mut() else {
            return true;
        };
        let pending = match watcher.pending() {
            Ok(pending) => pending,
            Err(error) => {
                tracing::warn!(
                    %error,
                    "cannot read the docs change watch; walking the docs folder at every search"
                );
                self.watcher = None;
                return true;
            }
        };
        pending
            || self.due
            || self
                .last_walk
                .is_none_or(|last| now.saturating_duration_since(last) >= self.interval)
    }

    /// Records a walk that started at `started` and read the folders `dirs`:
    /// watches new folders, drops the watches of folders gone.
    pub(crate) fn walked(&mut self, started: Instant, dirs: &[PathBuf]) {
        self.last_walk = Some(started);
        self.due = false;
        self.walks += 1;
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        match watcher.sync(dirs) {
            Ok(added) => self.due = added,
            Err(error) => {
                tracing::warn!(
                    %error,
                    "cannot watch the docs folders (on Linux, raise fs.inotify.max_user_watches); walking the docs folder at every search"
                );
                self.watcher = None;
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod imp {
    //! inotify watches on the walked folders.

    use std::collections::BTreeMap;
    use std::ffi::OsStr;
    use std::io;
    use std::path::PathBuf;

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

    /// The events that can change the index.
    fn mask() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::ATTRIB
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR
    }

    /// Whether an event can change the index: one about a folder (its own,
    /// or a subfolder's), or about a file that may be a page (a `.md` name
    /// not hidden). Editors' hidden swap files and other files do not count.
    fn relevant(mask: EventMask, name: Option<&OsStr>) -> bool {
        if mask.contains(EventMask::Q_OVERFLOW) || mask.contains(EventMask::ISDIR) {
            return true;
        }
        match name {
            None => true,
            Some(name) => name
                .to_str()
                .is_some_and(|name| !name.starts_with('.') && name.ends_with(".md")),
        }
    }

    /// An inotify instance (non-blocking) and a watch per walked folder.
    #[derive(Debug)]
    pub(super) struct Watcher {
        inotify: Inotify,
        watches: BTreeMap<PathBuf, WatchDescriptor>,
        buffer: Vec<u8>,
    }

    impl Watcher {
        /// A watcher without watches yet, or `None` when inotify is unavailable.
        pub(super) fn new() -> Option<Watcher> {
            match Inotify::init() {
                Ok(inotify) => Some(Watcher {
                    inotify,
                    watches: BTreeMap::new(),
                    buffer: vec![0; 4096],
                }),
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "inotify is unavailable; walking the docs folder at every search"
                    );
                    None
                }
            }
        }

        /// Reads every queued event; whether one of them can change the index.
        pub(super) fn pending(&mut self) -> io::Result<bool> {
            let mut pending = false;
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                        return Ok(pending);
                    }
                    Err(error) => return Err(error),
                };
                for event in events {
                    if event.mask == EventMask::IGNORED {
                        // The watch is gone (its folder was removed, or `sync` dropped it).
                        self.watches.retain(|_, wd| *wd != event.wd);
                    } else if relevant(event.mask, event.name) {
                        pending = true;
                    }
                }
            }
        }

        /// Watches exactly `dirs` (sorted); whether a folder was newly watched
        /// (or vanished before it could be), so a walk is due once more.
        pub(super) fn sync(&mut self, dirs: &[PathBuf]) -> io::Result<bool> {
            let mut watches = self.inotify.watches();
            // Drop first: a folder renamed within the tree keeps its inode, and
            // watching it again under its new name gives the same descriptor.
            let gone: Vec<PathBuf> = self
                .watches
                .keys()
                .filter(|dir| dirs.binary_search(dir).is_err())
                .cloned()
                .collect();
            for dir in gone {
                if let Some(wd) = self.watches.remove(&dir) {
                    // Fails harmlessly when the kernel dropped it already.
                    let _ = watches.remove(wd);
                }
            }
            let mut added = false;
            for dir in dirs {
                if self.watches.contains_key(dir) {
                    continue;
                }
                added = true;
                match watches.add(dir, mask()) {
                    Ok(wd) => {
                        self.watches.insert(dir.clone(), wd);
                    }
                    // Gone or made unreadable since the walk: the next walk
                    // (due, as `added` is set) sees it so and skips it.
                    Err(error)
                        if matches!(
                            error.kind(),
                            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied
                        ) => {}
                    Err(error) => return Err(error),
                }
            }
            Ok(added)
        }

        /// Number of watched folders.
        #[cfg(test)]
        pub(super) fn len(&self) -> usize {
            self.watches.len()
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    //! No watcher on this platform: every search walks.

    use std::io;
    use std::path::PathBuf;

    /// Never built: [`Watcher::new`] answers `None`.
    #[derive(Debug)]
    pub(super) enum Watcher {}

    impl Watcher {
        /// No watcher on this platform.
        pub(super) fn new() -> Option<Watcher> {
            None
        }

        /// Unreachable: no value exists.
        pub(super) fn pending(&mut self) -> io::Result<bool> {
            match *self {}
        }

        /// Unreachable: no value exists.
        pub(super) fn sync(&mut self, _dirs: &[PathBuf]) -> io::Result<bool> {
            match *self {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_mode_walks_at_every_search() {
        let mut walk = ChangeCheck::new(Mode::Walk);
        let t0 = Instant::now();
        assert!(!walk.watching());
        assert!(walk.walk_due(t0));
        walk.walked(t0, &[]);
        assert!(walk.walk_due(t0), "walk mode walks at every search");
        walk.walked(t0, &[]);
        assert_eq!(walk.walks(), 2);
    }

    /// Outside Linux there is no watcher: asking for one falls back to a walk per search.
    #[cfg(not(target_os = "linux"))]
    #[test]
    fn watch_mode_falls_back_to_walking_outside_linux() {
        let mut watch = ChangeCheck::new(Mode::Watch);
        let t0 = Instant::now();
        assert!(!watch.watching());
        watch.walked(t0, &[std::env::temp_dir()]);
        assert!(watch.walk_due(t0), "no watcher: every search walks");
    }

    // inotify is Linux-only: the watcher's own tests run there.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_watched_tree_walks_first_then_after_the_interval() {
        let mut watch = ChangeCheck::new(Mode::Watch);
        let t0 = Instant::now();
        assert!(watch.watching(), "inotify starts on Linux");
        assert!(watch.walk_due(t0), "the first search builds the index");
        watch.walked(t0, &[]);
        assert!(
            !watch.walk_due(t0),
            "nothing changed, no folder watched newly"
        );
        assert!(!watch.walk_due(t0 + WALK_INTERVAL / 2));
        assert!(
            watch.walk_due(t0 + WALK_INTERVAL),
            "the safety net walks after the interval"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_newly_watched_folder_makes_one_more_walk_due() {
        let mut watch = ChangeCheck::new(Mode::Watch);
        assert!(watch.watching(), "inotify starts on Linux");
        let dir = std::env::temp_dir();
        let t0 = Instant::now();
        watch.walked(t0, std::slice::from_ref(&dir));
        assert!(watch.walk_due(t0), "a change before the watch was added");
        watch.walked(t0, std::slice::from_ref(&dir));
        assert_eq!(watch.watcher.as_ref().map(imp::Watcher::len), Some(1));
        watch.walked(t0, &[]);
        assert_eq!(watch.watcher.as_ref().map(imp::Watcher::len), Some(0));
    }
}
