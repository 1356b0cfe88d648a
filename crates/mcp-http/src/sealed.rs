//! Self-verifying session ids (`--session-secret-file`), so that several instances behind a load
//! balancer accept each other's sessions without sticky routing or shared storage.
//!
//! A session's only state is what `initialize` negotiated, a short key (`Session::resume_key`:
//! the revision, `+ui` when the client declared MCP Apps), so the id can carry it:
//! `s1.<key>.<expiry, Unix seconds>.<128 random bits, hex>.<HMAC-SHA256, hex>`, the HMAC
//! keyed with the shared secret over everything before it plus the id of the token that opened
//! the session. A forged, altered, expired or other-token id fails the check and answers `404`.
//! The expiry is absolute (the session's lifetime is [`HttpOptions::session_idle`] from
//! `initialize`), because no instance sees every use.
//!
//! [`HttpOptions::session_idle`]: crate::HttpOptions::session_idle
use crate::Error;
use crate::tokens::{hex, random_bytes};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use subtle::ConstantTimeEq;

/// The shortest secret accepted, in bytes.
const MIN_SECRET: usize = 32;

/// HMAC-SHA256 (RFC 2104).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let inner_key = block.map(|b| b ^ 0x36);
    let outer_key = block.map(|b| b ^ 0x5c);
    let inner = Sha256::new()
        .chain_update(inner_key)
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(outer_key)
        .chain_update(inner)
        .finalize()
        .into()
}

/// The shared secret and the lifetime of the ids it seals.
#[derive(Debug)]
pub(crate) struct Sealer {
    secret: Vec<u8>,
    lifetime: Duration,
}

impl Sealer {
    /// Reads the secret (surrounding whitespace trimmed; at least 32 bytes, e.g. `openssl rand
    /// -hex 32`).
    pub(crate) fn open(path: &Path, lifetime: Duration) -> Result<Self, Error> {
        let text = std::fs::read(path).map_err(Error::ReadSessionSecret)?;
        let secret = text.trim_ascii().to_vec();
        if secret.len() < MIN_SECRET {
            return Err(Error::ShortSessionSecret { min: MIN_SECRET });
        }
        Ok(Self { secret, lifetime })
    }

    fn mac(&self, body: &str, token_id: Option<&str>) -> [u8; 32] {
        let message = format!("{body}|{}", token_id.unwrap_or(""));
        hmac_sha256(&self.secret, message.as_bytes())
    }

    /// A new id for a session of this resume key opened by `token_id`, valid for the lifetime.
    pub(crate) fn seal(
        &self,
        key: &str,
        token_id: Option<&str>,
        now: SystemTime,
    ) -> Result<String, Error> {
        let expiry = (now + self.lifetime)
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let body = format!("s1.{key}.{expiry}.{}", hex(&random_bytes::<16>()?));
        let mac = hex(&self.mac(&body, token_id));
        Ok(format!("{body}.{mac}"))
    }

    /// The resume key an id was sealed with, when it is authentic, unexpired and `token_id`'s.
    pub(crate) fn open_id<'a>(
        &self,
        id: &'a str,
        token_id: Option<&str>,
        now: SystemTime,
    ) -> Option<&'a str> {
        let (body, mac) = id.rsplit_once('.')?;
        let expected = hex(&self.mac(body, token_id));
        if !bool::from(expected.as_bytes().ct_eq(mac.as_bytes())) {
            return None;
        }
        let mut parts = body.split('.');
        let (Some("s1"), Some(key), Some(expiry), Some(_random), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let expiry = UNIX_EPOCH + Duration::from_secs(expiry.parse().ok()?);
        (now < expiry).then_some(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(secret: &str) -> Sealer {
        Sealer {
            secret: secret.as_bytes().to_vec(),
            lifetime: Duration::from_secs(60),
        }
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn ids_verify_only_unaltered_unexpired_and_for_their_token() {
        let now = SystemTime::now();
        let a = sealer(&"a".repeat(32));
        let id = a.seal("2025-11-25", Some("bmt_1"), now).unwrap();
        assert_eq!(a.open_id(&id, Some("bmt_1"), now), Some("2025-11-25"));
        let other_instance = sealer(&"a".repeat(32));
        assert_eq!(
            other_instance.open_id(&id, Some("bmt_1"), now),
            Some("2025-11-25")
        );
        assert_eq!(a.open_id(&id, Some("bmt_2"), now), None, "other token");
        assert_eq!(a.open_id(&id, None, now), None);
        assert_eq!(
            sealer(&"b".repeat(32)).open_id(&id, Some("bmt_1"), now),
            None
        );
        let later = now + Duration::from_secs(61);
        assert_eq!(a.open_id(&id, Some("bmt_1"), later), None, "expired");
        let altered = id.replacen("2025-11-25", "2025-06-18", 1);
        assert_eq!(a.open_id(&altered, Some("bmt_1"), now), None);
        for junk in ["", ".", "s1", "s1.x.1.2.3.4", &id[..id.len() - 1]] {
            assert_eq!(a.open_id(junk, Some("bmt_1"), now), None, "{junk}");
        }
    }
}
