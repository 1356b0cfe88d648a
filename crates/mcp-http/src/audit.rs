//! The audit file (`--audit FILE`): one JSON line per tool call, appended before the answer is
//! sent.
//!
//! Each line is written with one `write` call on a file opened for appending, so lines from
//! several instances sharing a file do not interleave, and nothing waits in a user-space buffer:
//! what was written survives the process (SIGTERM has nothing left to flush but the disk cache,
//! which [`AuditFile::flush`] syncs). `SIGHUP` reopens the path ([`AuditFile::reopen`]), the
//! convention logrotate expects.
use crate::Error;
use serde::Serialize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// One line of the audit file. Never the arguments, the result or the token itself.
#[derive(Debug, Serialize)]
pub(crate) struct AuditLine<'a> {
    /// RFC 3339 UTC time the call finished, with milliseconds.
    pub(crate) time: String,
    /// The token's id (`bmt_…`), or `null` without tokens.
    pub(crate) token_id: Option<&'a str>,
    /// The catalogue's name for the tool, or `<unknown tool>`.
    pub(crate) tool: &'a str,
    /// `ok`, `tool_error`, `scope_denied`, or `protocol_error` (`botmesh_mcp::CallOutcome`).
    pub(crate) status: &'a str,
    /// How long the server took, in microseconds.
    pub(crate) duration_us: u64,
}

/// The open audit file.
#[derive(Debug)]
pub(crate) struct AuditFile {
    #[cfg_attr(
        not(unix),
        expect(
            dead_code,
            reason = "only SIGHUP reopens the file, and it is Unix-only"
        )
    )]
    path: PathBuf,
    file: Mutex<File>,
}

fn open(path: &Path) -> Result<File, Error> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).map_err(Error::Audit)
}

impl AuditFile {
    /// Opens (creating when missing) `path` for appending; failing stops the server from starting.
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        Ok(Self {
            path: path.to_owned(),
            file: Mutex::new(open(path)?),
        })
    }

    /// Appends one line. A failed write is logged; the call is still answered.
    pub(crate) fn write(&self, line: &AuditLine<'_>) {
        let Ok(mut text) = serde_json::to_string(line) else {
            return;
        };
        text.push('\n');
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(error) = file.write_all(text.as_bytes()) {
            tracing::error!(%error, "cannot write to the audit file");
        }
    }

    /// Opens the path again (after logrotate moved the old file away); on failure the old file
    /// stays in use and the reason is logged.
    #[cfg(unix)]
    pub(crate) fn reopen(&self) {
        match open(&self.path) {
            Ok(new) => {
                *self.file.lock().unwrap_or_else(PoisonError::into_inner) = new;
                tracing::info!("audit file reopened");
            }
            Err(error) => {
                tracing::error!(%error, "cannot reopen the audit file; still writing to the old one");
            }
        }
    }

    /// Syncs what was written to disk.
    pub(crate) fn flush(&self) {
        let file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(error) = file.sync_data() {
            tracing::warn!(%error, "cannot sync the audit file");
        }
    }
}

/// `time` as RFC 3339 UTC with milliseconds (`2026-12-01T20:14:27.123Z`).
pub(crate) fn rfc3339(time: std::time::SystemTime) -> String {
    let since = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn rfc3339_matches_known_dates() {
        let at = |s: u64, ms: u64| {
            rfc3339(UNIX_EPOCH + Duration::from_secs(s) + Duration::from_millis(ms))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_796_070_867, 123), "2026-11-30T20:34:27.123Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
    }
}
