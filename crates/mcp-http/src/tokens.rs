//! Bearer tokens: issuing them ([`new_token`]) and checking them against the tokens file.
//!
//! A token reads `bmt_<12 hex>.<64 hex>`: the part before the dot is its id (safe to log), the rest
//! is 256 random bits. The file stores one JSON object per line, never the token itself:
//! `{"id":"bmt_…","sha256":"<hex of SHA-256 of the whole token>","scopes":["docs","flow"]}`.
//! Blank lines and lines starting with `#` are ignored; deleting a line revokes its token. A
//! running server reads the file again on `SIGHUP` (from the next request on) and, on any
//! platform, within about a second of its content changing.
use crate::Error;
use botmesh_mcp::Scope;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use subtle::ConstantTimeEq;

/// One line of the tokens file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenEntry {
    pub(crate) id: String,
    hash: [u8; 32],
    pub(crate) scopes: Vec<Scope>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct TokenLine {
    id: String,
    sha256: String,
    scopes: Vec<String>,
}

/// Issues a token with these scopes: appends its id, SHA-256 hash and scopes to `tokens_file`
/// (created with owner-only permissions when missing) and returns the token, which is stored
/// nowhere else.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("botmesh-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = dir.join("tokens.jsonl");
/// let token = botmesh_mcp_http::new_token(&file, &["flow".to_owned()])?;
/// assert!(token.starts_with("bmt_"));
/// assert!(!std::fs::read_to_string(&file)?.contains(&token));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn new_token(tokens_file: &Path, scopes: &[String]) -> Result<String, Error> {
    let scopes = check_scopes(scopes)?;
    if tokens_file.exists() {
        // Refuse to append to a file the server could not read.
        read_entries(tokens_file)?;
    }
    let id = format!("bmt_{}", hex(&random_bytes::<6>()?));
    let token = format!("{id}.{}", hex(&random_bytes::<32>()?));
    let line = TokenLine {
        id,
        sha256: hex(&Sha256::digest(token.as_bytes())),
        scopes: scopes
            .iter()
            .map(|scope| scope.as_str().to_owned())
            .collect(),
    };
    let mut text = serde_json::to_string(&line).expect("a token line always serializes");
    text.push('\n');
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(tokens_file).map_err(Error::WriteTokens)?;
    file.write_all(text.as_bytes())
        .map_err(Error::WriteTokens)?;
    file.sync_all().map_err(Error::WriteTokens)?;
    Ok(token)
}

/// The scopes named, sorted and without repeats; the names are [`Scope`]'s.
fn check_scopes(scopes: &[String]) -> Result<Vec<Scope>, Error> {
    let mut out: Vec<Scope> = Vec::new();
    for name in scopes {
        let name = name.trim();
        let scope = Scope::from_name(name).ok_or_else(|| Error::UnknownScope(name.to_owned()))?;
        if !out.contains(&scope) {
            out.push(scope);
        }
    }
    if out.is_empty() {
        return Err(Error::NoScopes);
    }
    out.sort_by_key(|scope| scope.as_str());
    Ok(out)
}

/// `N` bytes from the operating system's generator.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], Error> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|_| Error::Random)?;
    Ok(buf)
}

/// Lowercase hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

fn unhex32(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let digit = |c: u8| char::from(c).to_digit(16);
        let value = digit(pair[0])? * 16 + digit(pair[1])?;
        out[i] = u8::try_from(value).ok()?;
    }
    Some(out)
}

fn parse_entries(text: &str) -> Result<Vec<TokenEntry>, Error> {
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let malformed = || Error::MalformedTokens { line: n + 1 };
        let parsed: TokenLine = serde_json::from_str(line).map_err(|_| malformed())?;
        let hash = unhex32(&parsed.sha256).ok_or_else(malformed)?;
        let scopes = check_scopes(&parsed.scopes).map_err(|_| malformed())?;
        entries.push(TokenEntry {
            id: parsed.id,
            hash,
            scopes,
        });
    }
    Ok(entries)
}

fn read_entries(path: &Path) -> Result<Vec<TokenEntry>, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::ReadTokens)?;
    parse_entries(&text)
}

fn not_utf8() -> Error {
    Error::ReadTokens(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "not UTF-8",
    ))
}

/// The tokens in force, and the SHA-256 of the file content last looked at.
#[derive(Debug)]
struct State {
    seen: Option<[u8; 32]>,
    /// A changed content seen by the last poll: applied when the next poll sees it again, so a
    /// file caught half-written (truncated, then written) is never taken for the new tokens.
    pending: Option<[u8; 32]>,
    entries: Arc<Vec<TokenEntry>>,
}

/// The tokens the server accepts, read again on `SIGHUP` and when the file's content changes.
#[derive(Debug)]
pub(crate) struct TokenStore {
    path: PathBuf,
    state: RwLock<State>,
}

impl TokenStore {
    /// Reads the file; an unreadable or malformed file stops the server from starting.
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(Error::ReadTokens)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| not_utf8())?;
        let entries = parse_entries(text)?;
        Ok(Self {
            path: path.to_owned(),
            state: RwLock::new(State {
                seen: Some(Sha256::digest(&bytes).into()),
                pending: None,
                entries: Arc::new(entries),
            }),
        })
    }

    /// Reads the file again. Unless `forced` (a `SIGHUP`), nothing happens when its content is
    /// the one last looked at, and a changed content is applied only once two calls in a row
    /// (a second apart) saw it. A file that cannot be read or parsed keeps the previous tokens in
    /// force and logs why (once per content).
    pub(crate) fn reload(&self, forced: bool) {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(error) => {
                let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
                if forced || state.seen.is_some() {
                    tracing::warn!(%error, "cannot read the tokens file; the previous tokens stay in force");
                }
                state.seen = None;
                return;
            }
        };
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        if !forced && state.seen == Some(digest) {
            state.pending = None;
            return;
        }
        if !forced && state.pending != Some(digest) {
            state.pending = Some(digest);
            return;
        }
        state.seen = Some(digest);
        state.pending = None;
        let parsed = std::str::from_utf8(&bytes)
            .map_err(|_| not_utf8())
            .and_then(parse_entries);
        match parsed {
            Ok(entries) => {
                tracing::info!(tokens = entries.len(), "tokens file reloaded");
                state.entries = Arc::new(entries);
            }
            Err(error) => {
                tracing::warn!(%error, "tokens file not reloaded; the previous tokens stay in force");
            }
        }
    }

    /// The entry whose hash matches `token`. Every entry is compared in constant time, so the
    /// time taken does not depend on how much of a hash matched.
    pub(crate) fn verify(&self, token: &str) -> Option<TokenEntry> {
        let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let entries = self
            .state
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .entries
            .clone();
        let mut found = None;
        for entry in entries.iter() {
            if bool::from(entry.hash.ct_eq(&hash)) {
                found = Some(entry.clone());
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_checked_sorted_and_deduplicated() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            check_scopes(&s(&["flow", "docs", "flow"])).unwrap(),
            [Scope::Docs, Scope::Flow]
        );
        assert!(
            matches!(check_scopes(&s(&["admin"])), Err(Error::UnknownScope(x)) if x == "admin")
        );
        assert!(matches!(check_scopes(&[]), Err(Error::NoScopes)));
    }

    #[test]
    fn malformed_lines_are_reported_by_number() {
        let good = format!(
            r#"{{"id":"bmt_1","sha256":"{}","scopes":["flow"]}}"#,
            "ab".repeat(32)
        );
        let text = format!("# comment\n\n{good}\nnot json\n");
        assert!(matches!(
            parse_entries(&text),
            Err(Error::MalformedTokens { line: 4 })
        ));
        let short = r#"{"id":"bmt_1","sha256":"abcd","scopes":["flow"]}"#;
        assert!(matches!(
            parse_entries(short),
            Err(Error::MalformedTokens { line: 1 })
        ));
        assert_eq!(parse_entries(&good).unwrap().len(), 1);
    }

    #[test]
    fn hex_round_trips() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(unhex32(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex32(&"zz".repeat(32)), None);
    }
}
