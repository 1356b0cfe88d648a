//! DNS-rebinding protection and CORS: which `Host` and `Origin` values a request may carry.
//!
//! Hosts are compared by name only (port and scheme ignored, case-insensitive), which is what a
//! rebinding attack changes: a page on `evil.example` that resolves to 127.0.0.1 still sends
//! `Host: evil.example` and `Origin: http://evil.example`.
use crate::Error;
use std::net::SocketAddr;

/// The decision for one request's `Host` and `Origin` headers.
#[derive(Debug)]
pub(crate) struct Guard {
    /// Names accepted in `Host` and in the host part of `Origin`.
    hosts: Vec<String>,
    /// Exact origins (`scheme://host[:port]`, lowercase) answered with CORS headers.
    cors: Vec<String>,
    /// `--cors '*'`: every origin gets CORS headers.
    cors_any: bool,
}

/// The host name of an authority (`host[:port]`, `[v6]:port`), lowercase, brackets removed.
fn authority_host(authority: &str) -> Option<String> {
    let authority = authority.trim();
    let host = if let Some(rest) = authority.strip_prefix('[') {
        let end = rest.find(']')?;
        let after = &rest[end + 1..];
        if !(after.is_empty() || after.starts_with(':')) {
            return None;
        }
        &rest[..end]
    } else {
        match authority.split_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            Some(_) => return None,
            None => authority,
        }
    };
    let ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'_'));
    ok.then(|| host.to_ascii_lowercase())
}

/// The host of an origin (`scheme://authority`), lowercase.
fn origin_host(origin: &str) -> Option<String> {
    let (scheme, rest) = origin.trim().split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+')
    {
        return None;
    }
    authority_host(rest.strip_suffix('/').unwrap_or(rest))
}

impl Guard {
    /// The loopback names, the bound address when it is a specific one, and the hosts of
    /// `allowed` (origins or bare host names); `cors` lists origins or `*`.
    pub(crate) fn new(
        addr: SocketAddr,
        allowed: &[String],
        cors: &[String],
    ) -> Result<Self, Error> {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(str::to_owned).into();
        if !addr.ip().is_unspecified() {
            hosts.push(addr.ip().to_string());
        }
        for entry in allowed {
            let host = if entry.contains("://") {
                origin_host(entry)
            } else {
                authority_host(entry)
            };
            hosts.push(host.ok_or_else(|| Error::BadOrigin(entry.clone()))?);
        }
        hosts.sort();
        hosts.dedup();
        let mut guard = Self {
            hosts,
            cors: Vec::new(),
            cors_any: false,
        };
        for entry in cors {
            if entry.trim() == "*" {
                guard.cors_any = true;
            } else if origin_host(entry).is_some() {
                let origin = entry.trim().trim_end_matches('/').to_ascii_lowercase();
                guard.cors.push(origin);
            } else {
                return Err(Error::BadOrigin(entry.clone()));
            }
        }
        Ok(guard)
    }

    /// Whether a `Host` header value names this server. A request without `Host` passes (no
    /// browser sends one).
    pub(crate) fn host_allowed(&self, host: Option<&str>) -> bool {
        match host {
            None => true,
            Some(host) => authority_host(host).is_some_and(|h| self.hosts.contains(&h)),
        }
    }

    /// Whether a request with this `Origin` may be served: no origin (not a browser), an allowed
    /// host, or a CORS origin.
    pub(crate) fn origin_allowed(&self, origin: Option<&str>) -> bool {
        match origin {
            None => true,
            Some(origin) => {
                self.cors_allowed(origin)
                    || origin_host(origin).is_some_and(|h| self.hosts.contains(&h))
            }
        }
    }

    /// Whether responses to this origin carry CORS headers.
    pub(crate) fn cors_allowed(&self, origin: &str) -> bool {
        self.cors_any
            || (!self.cors.is_empty()
                && self
                    .cors
                    .contains(&origin.trim().trim_end_matches('/').to_ascii_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(allowed: &[&str], cors: &[&str]) -> Guard {
        let v = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Guard::new("127.0.0.1:0".parse().unwrap(), &v(allowed), &v(cors)).unwrap()
    }

    #[test]
    fn loopback_names_pass_with_any_port_and_others_fail() {
        let g = guard(&[], &[]);
        for host in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:80",
            "[::1]:8080",
            "LOCALHOST",
        ] {
            assert!(g.host_allowed(Some(host)), "{host}");
        }
        for host in [
            "evil.example.com",
            "evil.example.com:3000",
            "localhost.evil.com",
            "",
            "[::1]x",
        ] {
            assert!(!g.host_allowed(Some(host)), "{host}");
        }
        assert!(g.origin_allowed(Some("http://localhost:5173")));
        assert!(!g.origin_allowed(Some("http://evil.example.com")));
        assert!(!g.origin_allowed(Some("null")));
        assert!(g.origin_allowed(None));
    }

    #[test]
    fn allow_origin_adds_hosts_and_cors_adds_origins() {
        let g = guard(
            &["https://mcp.example.com", "team.internal:8443"],
            &["https://app.example.com"],
        );
        assert!(g.host_allowed(Some("mcp.example.com")));
        assert!(g.host_allowed(Some("team.internal")));
        assert!(!g.host_allowed(Some("app.example.com")));
        assert!(g.origin_allowed(Some("https://app.example.com")));
        assert!(g.cors_allowed("https://app.example.com"));
        assert!(!g.cors_allowed("https://mcp.example.com"));
        assert!(guard(&[], &["*"]).cors_allowed("https://anything.example"));
    }

    #[test]
    fn malformed_entries_are_refused() {
        let bad =
            |a: &str| Guard::new("127.0.0.1:0".parse().unwrap(), &[a.to_owned()], &[]).is_err();
        assert!(bad("https://"));
        assert!(bad("a b"));
        let bad_cors = Guard::new(
            "127.0.0.1:0".parse().unwrap(),
            &[],
            &["app.example.com".to_owned()],
        );
        assert!(bad_cors.is_err());
    }
}
