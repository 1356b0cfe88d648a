//! What an operator watches and bounds: the global body budget, the per-token concurrency cap
//! and the Prometheus metrics.
//!
//! Every reservation is an RAII value: dropping it (answer built, client gone, task cancelled)
//! gives its bytes or its slot back, so nothing leaks on an error path.
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update below is one step, so a panic elsewhere leaves the data consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The global budget of request-body bytes held at once.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    used: AtomicUsize,
    bodies: AtomicUsize,
}

/// Bytes (and one body) taken from a [`Budget`], given back on drop.
#[derive(Debug)]
pub(crate) struct Reservation {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            used: AtomicUsize::new(0),
            bodies: AtomicUsize::new(0),
        }
    }

    /// The budget in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|total| *total <= self.limit)
            })
            .is_ok()
    }

    /// Reserves `bytes` for one body, or `None` when the budget cannot hold them now.
    pub(crate) fn reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        if !self.take(bytes) {
            return None;
        }
        self.bodies.fetch_add(1, Ordering::AcqRel);
        Some(Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// Bytes reserved now.
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// Bodies holding a reservation now.
    pub(crate) fn bodies(&self) -> usize {
        self.bodies.load(Ordering::Acquire)
    }
}

impl Reservation {
    /// Grows the reservation to `total` bytes (a chunked body arriving); false when the budget
    /// cannot hold that many.
    pub(crate) fn grow_to(&mut self, total: usize) -> bool {
        if total <= self.bytes {
            return true;
        }
        if self.budget.take(total - self.bytes) {
            self.bytes = total;
            true
        } else {
            false
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::AcqRel);
        self.budget.bodies.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Heap bytes per JSON object once parsed: serde_json's map is a `BTreeMap<String, Value>`,
/// whose first node holds room for 11 entries (about 640 bytes with the allocator's overhead).
const OBJECT_COST: usize = 640;
/// Heap bytes per JSON string once parsed, beyond its characters (allocation overhead).
const STRING_COST: usize = 32;
/// Heap bytes per JSON array once parsed, beyond its elements' slots.
const ARRAY_COST: usize = 64;

/// An upper estimate of the heap a `serde_json::Value` parsed from `body` takes, from one pass
/// over the bytes (objects, arrays and strings counted outside of strings), without parsing.
///
/// Measured with `benches/body-burst.py`: a 15 MiB document of small steps takes about 270 MiB
/// parsed (this estimates 290 MiB); a 15 MiB string takes 15 MiB.
pub(crate) fn parsed_size_estimate(body: &[u8]) -> usize {
    let (mut objects, mut arrays, mut strings) = (0usize, 0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in body {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                strings += 1;
            }
            b'{' => objects += 1,
            b'[' => arrays += 1,
            _ => {}
        }
    }
    // Array slots are 32 bytes per element and grow by doubling: the characters count covers
    // the elements' text, the per-array cost the slack.
    body.len()
        .saturating_add(objects.saturating_mul(OBJECT_COST))
        .saturating_add(arrays.saturating_mul(ARRAY_COST))
        .saturating_add(strings.saturating_mul(STRING_COST))
}

/// Requests in flight per key (a token id, or a client address without tokens), capped.
#[derive(Debug)]
pub(crate) struct Concurrency {
    max: usize,
    counts: Mutex<HashMap<String, usize>>,
}

/// One request's slot in [`Concurrency`], given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    owner: Arc<Concurrency>,
    key: String,
}

impl Concurrency {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// A slot for `key`, or `None` when `key` already has `max` requests in flight.
    pub(crate) fn enter(self: &Arc<Self>, key: &str) -> Option<Slot> {
        let mut counts = lock(&self.counts);
        let count = counts.entry(key.to_owned()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Slot {
            owner: self.clone(),
            key: key.to_owned(),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = lock(&self.owner.counts);
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The upper bounds (seconds) of the latency histogram's buckets.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    total: u64,
    sum: f64,
}

/// Counters, gauges and histograms, written in the Prometheus text format by [`Metrics::render`].
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// `(method, tool, status)` → count.
    requests: Mutex<HashMap<(&'static str, &'static str, u16), u64>>,
    latency: Mutex<HashMap<&'static str, Histogram>>,
    pub(crate) rate_limited: AtomicU64,
    pub(crate) budget_refused: AtomicU64,
    pub(crate) concurrency_refused: AtomicU64,
}

/// The values sampled at render time rather than counted.
#[derive(Debug)]
pub(crate) struct Gauges {
    pub(crate) bodies_in_flight: usize,
    pub(crate) body_bytes_in_flight: usize,
    pub(crate) body_budget_bytes: usize,
    pub(crate) sessions: usize,
    pub(crate) ready: bool,
}

impl Metrics {
    /// Counts one answered request.
    pub(crate) fn record(
        &self,
        method: &'static str,
        tool: &'static str,
        status: u16,
        elapsed: Duration,
    ) {
        *lock(&self.requests)
            .entry((method, tool, status))
            .or_insert(0) += 1;
        let seconds = elapsed.as_secs_f64();
        let mut latency = lock(&self.latency);
        let histogram = latency.entry(method).or_default();
        for (count, bound) in histogram.counts.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *count += 1;
            }
        }
        histogram.total += 1;
        histogram.sum += seconds;
    }

    /// The Prometheus text exposition (format 0.0.4), families sorted, labels escaped.
    pub(crate) fn render(&self, gauges: &Gauges) -> String {
        let mut out = String::new();
        let head = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        head(
            &mut out,
            "botmesh_mcp_http_requests_total",
            "counter",
            "HTTP requests answered, by JSON-RPC method, tool and HTTP status.",
        );
        let mut requests: Vec<_> = lock(&self.requests).iter().map(|(k, v)| (*k, *v)).collect();
        requests.sort();
        for ((method, tool, status), count) in requests {
            let _ = writeln!(
                out,
                "botmesh_mcp_http_requests_total{{method=\"{}\",tool=\"{}\",status=\"{status}\"}} {count}",
                escape(method),
                escape(tool)
            );
        }
        head(
            &mut out,
            "botmesh_mcp_http_request_duration_seconds",
            "histogram",
            "Time from a request's headers to its answer, by JSON-RPC method.",
        );
        let latency = lock(&self.latency);
        let mut methods: Vec<_> = latency.keys().copied().collect();
        methods.sort_unstable();
        for method in methods {
            let Some(h) = latency.get(method) else {
                continue;
            };
            let m = escape(method);
            for (count, bound) in h.counts.iter().zip(BUCKETS) {
                let _ = writeln!(
                    out,
                    "botmesh_mcp_http_request_duration_seconds_bucket{{method=\"{m}\",le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "botmesh_mcp_http_request_duration_seconds_bucket{{method=\"{m}\",le=\"+Inf\"}} {}\nbotmesh_mcp_http_request_duration_seconds_sum{{method=\"{m}\"}} {}\nbotmesh_mcp_http_request_duration_seconds_count{{method=\"{m}\"}} {}",
                h.total, h.sum, h.total
            );
        }
        drop(latency);
        let counters = [
            (
                "botmesh_mcp_http_rate_limited_total",
                "Requests refused by the rate limit (429).",
                &self.rate_limited,
            ),
            (
                "botmesh_mcp_http_budget_refused_total",
                "Requests refused because the in-flight body budget was full (503).",
                &self.budget_refused,
            ),
            (
                "botmesh_mcp_http_concurrency_refused_total",
                "Requests refused by the per-token concurrency cap (429).",
                &self.concurrency_refused,
            ),
        ];
        for (name, help, value) in counters {
            head(&mut out, name, "counter", help);
            let _ = writeln!(out, "{name} {}", value.load(Ordering::Relaxed));
        }
        let gauges = [
            (
                "botmesh_mcp_http_bodies_in_flight",
                "Request bodies being read or served now.",
                gauges.bodies_in_flight,
            ),
            (
                "botmesh_mcp_http_body_bytes_in_flight",
                "Bytes of the body budget reserved now.",
                gauges.body_bytes_in_flight,
            ),
            (
                "botmesh_mcp_http_body_budget_bytes",
                "The body budget (--max-inflight-body).",
                gauges.body_budget_bytes,
            ),
            (
                "botmesh_mcp_http_sessions",
                "Sessions held in memory.",
                gauges.sessions,
            ),
            (
                "botmesh_mcp_http_ready",
                "1 while the server takes traffic, 0 while it shuts down.",
                usize::from(gauges.ready),
            ),
        ];
        for (name, help, value) in gauges {
            head(&mut out, name, "gauge", help);
            let _ = writeln!(out, "{name} {value}");
        }
        out
    }
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_refuses_past_its_limit_and_returns_on_drop() {
        let budget = Arc::new(Budget::new(100));
        let a = budget.reserve(60).unwrap();
        assert!(budget.reserve(41).is_none());
        let mut b = budget.reserve(40).unwrap();
        assert_eq!((budget.used(), budget.bodies()), (100, 2));
        assert!(!b.grow_to(41));
        drop(a);
        assert!(b.grow_to(90));
        assert_eq!(budget.used(), 90);
        drop(b);
        assert_eq!((budget.used(), budget.bodies()), (0, 0));
    }

    #[test]
    fn the_cap_counts_per_key_and_forgets_idle_keys() {
        let cap = Arc::new(Concurrency::new(2));
        let a1 = cap.enter("a").unwrap();
        let _a2 = cap.enter("a").unwrap();
        assert!(cap.enter("a").is_none());
        let _b = cap.enter("b").unwrap();
        drop(a1);
        let _a3 = cap.enter("a").unwrap();
        drop(_b);
        assert!(!lock(&cap.counts).contains_key("b"));
    }

    #[test]
    fn the_parsed_size_estimate_counts_structure_outside_strings() {
        let text = br#"{"a":"x{[\"}"}"#;
        assert_eq!(
            parsed_size_estimate(text),
            text.len() + OBJECT_COST + 2 * STRING_COST
        );
        let steps = br#"[{"id":"s1"},{"id":"s2"}]"#;
        assert_eq!(
            parsed_size_estimate(steps),
            steps.len() + ARRAY_COST + 2 * OBJECT_COST + 4 * STRING_COST
        );
        // Small objects cost far more than their text; one long string about its length.
        let long = format!(r#"{{"t":"{}"}}"#, "x".repeat(1 << 20));
        assert!(parsed_size_estimate(long.as_bytes()) < (1 << 20) + 1024);
    }

    #[test]
    fn histogram_buckets_are_cumulative() {
        let metrics = Metrics::default();
        metrics.record("ping", "", 200, Duration::from_micros(700));
        metrics.record("ping", "", 200, Duration::from_secs(20));
        let text = metrics.render(&Gauges {
            bodies_in_flight: 0,
            body_bytes_in_flight: 0,
            body_budget_bytes: 1,
            sessions: 0,
            ready: true,
        });
        assert!(text.contains(
            "botmesh_mcp_http_request_duration_seconds_bucket{method=\"ping\",le=\"0.001\"} 1\n"
        ));
        assert!(text.contains(
            "botmesh_mcp_http_request_duration_seconds_bucket{method=\"ping\",le=\"+Inf\"} 2\n"
        ));
        assert!(text.contains(
            "botmesh_mcp_http_requests_total{method=\"ping\",tool=\"\",status=\"200\"} 2\n"
        ));
        assert_eq!(escape("a\"b\\"), "a\\\"b\\\\");
    }
}
