//! Where sessions live between requests: one type with open, resume and close, whichever store
//! the options chose, so the server is called from one place (`service::serve`).
//!
//! - [`SessionStore::Table`]: the in-memory session table (random ids, idle expiry).
//! - [`SessionStore::Sealed`]: self-verifying ids that carry the session's resume key (its
//!   revision, and whether its client declared MCP Apps: `Session::resume_key`; `sealed.rs`).
//! - [`SessionStore::None`]: `--stateless`, no ids; each request gets a session at the revision
//!   of its version header.
//!
//! A stored session keeps what its `initialize` negotiated only: the token's scopes are set on
//! every request from the tokens file as it is now, never kept from `initialize`. Without ids
//! (`--stateless`) nothing is kept: a session at the header's revision serves each request, so
//! a client that declared MCP Apps in `initialize` is served as one that did not (a 2026-07-28
//! request declares it in each request and is served the view).
use crate::sealed::Sealer;
use crate::state::{SessionSlot, Sessions};
use botmesh_mcp::Session;
use std::sync::Arc;
use std::time::SystemTime;

/// The session store.
#[derive(Debug)]
pub(crate) enum SessionStore {
    /// No session ids (`HttpOptions::stateless`).
    None,
    /// The in-memory session table.
    Table(Sessions),
    /// Sealed session ids (`HttpOptions::session_secret_file`).
    Sealed(Sealer),
}

/// A session taken out of the store to serve one request.
#[derive(Debug)]
pub(crate) struct Resumed {
    pub(crate) session: Session,
    /// The table's slot, to store the session back when a request changed it.
    slot: Option<Arc<SessionSlot>>,
}

/// Why a session could not be resumed or opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StoreError {
    /// The request names no session (`400`).
    MissingId,
    /// Unknown, expired, forged or another token's (`404`).
    NotFound,
    /// The table is full (`503`).
    Full,
    /// The system gave no randomness for an id (`500`).
    NoRandomness,
}

impl SessionStore {
    /// Resumes the session `id` names for `token_id`; without ids, a session at `revision`.
    pub(crate) fn resume(
        &self,
        id: Option<&str>,
        token_id: Option<&str>,
        revision: &'static str,
    ) -> Result<Resumed, StoreError> {
        let resumed = |session| Resumed {
            session,
            slot: None,
        };
        match self {
            SessionStore::None => Session::at_revision(revision)
                .map(resumed)
                .ok_or(StoreError::NotFound),
            SessionStore::Sealed(sealer) => {
                let id = id.ok_or(StoreError::MissingId)?;
                sealer
                    .open_id(id, token_id, SystemTime::now())
                    .and_then(Session::from_resume_key)
                    .map(resumed)
                    .ok_or(StoreError::NotFound)
            }
            SessionStore::Table(sessions) => {
                let id = id.ok_or(StoreError::MissingId)?;
                match sessions.get(id) {
                    // Work on a copy so concurrent requests of one session do not wait for
                    // each other; `save` stores back a session a request changed.
                    Some(slot) if slot.token_id.as_deref() == token_id => Ok(Resumed {
                        session: slot.snapshot(),
                        slot: Some(slot),
                    }),
                    _ => Err(StoreError::NotFound),
                }
            }
        }
    }

    /// Stores back a resumed session a request changed (a repeated `initialize`); only the
    /// table keeps state.
    pub(crate) fn save(resumed: Resumed) {
        if let Some(slot) = resumed.slot {
            slot.store(resumed.session);
        }
    }

    /// Keeps a session an `initialize` opened: its new id, or `None` without ids.
    pub(crate) fn open(
        &self,
        session: Session,
        token_id: Option<&str>,
    ) -> Result<Option<String>, StoreError> {
        match self {
            SessionStore::None => Ok(None),
            SessionStore::Sealed(sealer) => sealer
                .seal(
                    &session.resume_key().unwrap_or_default(),
                    token_id,
                    SystemTime::now(),
                )
                .map(Some)
                .map_err(|_| StoreError::NoRandomness),
            SessionStore::Table(sessions) => {
                let id = crate::tokens::random_bytes::<16>()
                    .map(|bytes| crate::tokens::hex(&bytes))
                    .map_err(|_| StoreError::NoRandomness)?;
                sessions
                    .insert(id.clone(), token_id.map(str::to_owned), session)
                    .map_err(|_| StoreError::Full)?;
                Ok(Some(id))
            }
        }
    }

    /// Closes session `id` (`DELETE`); false when `token_id` has no such session. A sealed id
    /// carries no state to forget: it stays valid until its expiry.
    pub(crate) fn close(&self, id: &str, token_id: Option<&str>) -> bool {
        match self {
            SessionStore::None => false,
            SessionStore::Sealed(sealer) => {
                sealer.open_id(id, token_id, SystemTime::now()).is_some()
            }
            SessionStore::Table(sessions) => match sessions.get(id) {
                Some(slot) if slot.token_id.as_deref() == token_id => sessions.remove(id),
                _ => false,
            },
        }
    }

    /// Sessions held (the table's; sealed ids are held by their clients).
    pub(crate) fn len(&self) -> usize {
        match self {
            SessionStore::Table(sessions) => sessions.len(),
            SessionStore::None | SessionStore::Sealed(_) => 0,
        }
    }

    /// Forgets idle sessions.
    pub(crate) fn sweep(&self) {
        if let SessionStore::Table(sessions) = self {
            sessions.sweep();
        }
    }
}
