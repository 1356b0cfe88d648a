//! Shared mutable state: the session table and the rate limiter.
//!
//! Both use a monotonic [`Instant`] only to measure idleness and refill; nothing derived from it
//! is ever serialized.
use botmesh_mcp::Session;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One HTTP session: the server's per-connection state plus who opened it.
#[derive(Debug)]
pub(crate) struct SessionSlot {
    /// The id of the token that opened it (`None` without tokens); another token gets 404.
    pub(crate) token_id: Option<String>,
    /// The server's session state (negotiated revision, scopes), copied out per request.
    session: Mutex<Session>,
    /// Milliseconds since [`Sessions::base`] at the last use.
    last_used: AtomicU64,
}

impl SessionSlot {
    /// A copy of the session state, to serve one request with.
    pub(crate) fn snapshot(&self) -> Session {
        self.session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Replaces the session state (after a request changed it).
    pub(crate) fn store(&self, session: Session) {
        *self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = session;
    }
}

/// The session table is full.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every slot is taken by a live session.
    Full,
}

/// The session table.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<SessionSlot>>>,
    base: Instant,
    idle: Duration,
    max: usize,
}

impl Sessions {
    pub(crate) fn new(idle: Duration, max: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            base: Instant::now(),
            idle,
            max,
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn expired(&self, slot: &SessionSlot, now: u64) -> bool {
        let idle = u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX);
        now.saturating_sub(slot.last_used.load(Ordering::Relaxed)) >= idle
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<SessionSlot>>> {
        // A panic while the table was locked leaves it consistent (no multi-step updates).
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The live session with this id, marked as used now; an expired one is dropped.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<SessionSlot>> {
        self.get_at(id, self.now_ms())
    }

    /// [`get`](Self::get) at `now` milliseconds after the table was made (tests drive the clock).
    fn get_at(&self, id: &str, now: u64) -> Option<Arc<SessionSlot>> {
        let mut map = self.lock();
        let slot = map.get(id)?;
        if self.expired(slot, now) {
            map.remove(id);
            return None;
        }
        slot.last_used.store(now, Ordering::Relaxed);
        Some(slot.clone())
    }

    /// Stores a session under a fresh id.
    pub(crate) fn insert(
        &self,
        id: String,
        token_id: Option<String>,
        session: Session,
    ) -> Result<(), Full> {
        self.insert_at(id, token_id, session, self.now_ms())
    }

    fn insert_at(
        &self,
        id: String,
        token_id: Option<String>,
        session: Session,
        now: u64,
    ) -> Result<(), Full> {
        let mut map = self.lock();
        if map.len() >= self.max {
            map.retain(|_, slot| !self.expired(slot, now));
            if map.len() >= self.max {
                return Err(Full::Full);
            }
        }
        let slot = SessionSlot {
            token_id,
            session: Mutex::new(session),
            last_used: AtomicU64::new(now),
        };
        map.insert(id, Arc::new(slot));
        Ok(())
    }

    /// Forgets a session; false when there was none.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// How many sessions are held (expired ones included until the next sweep).
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Drops every expired session.
    pub(crate) fn sweep(&self) {
        let now = self.now_ms();
        self.lock().retain(|_, slot| !self.expired(slot, now));
    }
}

/// A token bucket per key: `per_minute` requests of burst, refilled evenly over a minute.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    per_minute: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    pub(crate) fn new(per_minute: u32) -> Self {
        Self {
            per_minute: f64::from(per_minute),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    fn refill(&self, tokens: f64, since: Instant, now: Instant) -> f64 {
        let rate = self.per_minute / 60.0;
        (tokens + now.saturating_duration_since(since).as_secs_f64() * rate).min(self.per_minute)
    }

    /// Takes one request from `key`'s bucket, or says how long until one is available.
    pub(crate) fn check(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (tokens, last) = buckets.get(key).copied().unwrap_or((self.per_minute, now));
        let tokens = self.refill(tokens, last, now);
        if tokens >= 1.0 {
            buckets.insert(key.to_owned(), (tokens - 1.0, now));
            Ok(())
        } else {
            buckets.insert(key.to_owned(), (tokens, now));
            let rate = self.per_minute / 60.0;
            Err(Duration::from_secs_f64((1.0 - tokens) / rate))
        }
    }

    /// Drops the buckets that are full again, so idle clients cost no memory.
    pub(crate) fn sweep(&self) {
        let now = Instant::now();
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        buckets.retain(|_, (tokens, last)| self.refill(*tokens, *last, now) < self.per_minute);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_the_burst_then_refuses_with_a_wait() {
        let limiter = RateLimiter::new(3);
        for _ in 0..3 {
            assert_eq!(limiter.check("a"), Ok(()));
        }
        let wait = limiter.check("a").unwrap_err();
        assert!(
            wait > Duration::from_secs(15) && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        assert_eq!(limiter.check("b"), Ok(()), "keys are independent");
    }

    #[test]
    fn use_keeps_a_session_alive_and_idleness_expires_it() {
        let sessions = Sessions::new(Duration::from_millis(400), 10);
        sessions
            .insert_at("a".into(), None, Session::new(), 0)
            .unwrap();
        for now in [150, 300, 450, 799] {
            assert!(sessions.get_at("a", now).is_some(), "used at {now}");
        }
        assert!(sessions.get_at("a", 1199).is_none(), "idle for 400 ms");
        assert_eq!(sessions.len(), 0, "an expired session is dropped");
    }

    #[test]
    fn sessions_expire_after_idle_and_full_table_refuses() {
        let sessions = Sessions::new(Duration::ZERO, 1);
        sessions.insert("a".into(), None, Session::new()).unwrap();
        assert!(sessions.get("a").is_none(), "idle zero expires at once");
        let sessions = Sessions::new(Duration::from_secs(60), 1);
        sessions.insert("a".into(), None, Session::new()).unwrap();
        assert_eq!(
            sessions.insert("b".into(), None, Session::new()),
            Err(Full::Full)
        );
        assert!(sessions.get("a").is_some());
        assert!(sessions.remove("a"));
        assert!(!sessions.remove("a"));
    }
}
