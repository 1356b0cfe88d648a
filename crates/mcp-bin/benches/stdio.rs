//! Benchmarks over real pipes: spawn-to-`initialize`, sequential pings, 5,000 pipelined
//! `tools/call`s and RSS after `initialize`, for `botmesh-mcp` and for a floor: a plain
//! synchronous serde_json loop (this same bench binary, re-run with `BOTMESH_BENCH_FLOOR=1`).
//!
//! Run with `cargo bench -p botmesh-mcp-cli --bench stdio`. Figures are medians of several runs.
//! The server measured is the bench build of `botmesh-mcp`, or the binary named by
//! `BOTMESH_BENCH_BIN`: measure the shipped build with
//! `BOTMESH_BENCH_BIN=$(cargo xtask dist) cargo bench -p botmesh-mcp-cli --bench stdio`.
#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark program reports on stdout"
)]

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const CALL_VALIDATE: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_validate","arguments":{"document":{"version":2,"id":"a","steps":[{"id":"s","kind":"end"}]}}}}"#;
const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The floor: read a line, parse it, answer `{}` or a fixed result, flush.
fn floor_server() {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = message.get("id") {
            let result = if message["method"] == "initialize" {
                serde_json::json!({"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}})
            } else {
                serde_json::json!({})
            };
            let answer = serde_json::json!({"jsonrpc":"2.0","id":id,"result":result});
            serde_json::to_writer(&mut out, &answer).unwrap();
            out.write_all(b"\n").unwrap();
            out.flush().unwrap();
        }
    }
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// The server measured: `BOTMESH_BENCH_BIN`, else the bench build of `botmesh-mcp`.
fn server_binary() -> std::ffi::OsString {
    std::env::var_os("BOTMESH_BENCH_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_botmesh-mcp").into())
}

fn spawn(floor: bool) -> Server {
    let mut command = if floor {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.env("BOTMESH_BENCH_FLOOR", "1");
        command
    } else {
        Command::new(server_binary())
    };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    Server {
        child,
        stdin,
        stdout,
    }
}

impl Server {
    fn call(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        answer
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    fn finish(mut self) {
        drop(self.stdin);
        self.child.wait().unwrap();
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median spawn-to-`initialize` time, and median RSS (KiB) after `initialize` and after a
/// following `tools/list` and one `tools/call`.
fn spawn_to_initialize(floor: bool) -> (Duration, u64, u64) {
    let mut times = Vec::new();
    let (mut rss, mut rss_used) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let start = Instant::now();
        let mut server = spawn(floor);
        server.call(INIT);
        times.push(start.elapsed());
        rss.push(server.rss_kib());
        server.call(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        server.call(CALL_VALIDATE);
        rss_used.push(server.rss_kib());
        server.finish();
    }
    rss.sort_unstable();
    rss_used.sort_unstable();
    (
        median(times),
        rss[rss.len() / 2],
        rss_used[rss_used.len() / 2],
    )
}

/// Sequential round trips per second of `ping` (legacy) or of `tools/list` in either era.
fn round_trips_per_second(floor: bool, list: bool, stateless: bool) -> f64 {
    let mut rates = Vec::new();
    let ping = match (list, stateless) {
        (true, true) => format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{STATELESS_META}}}}}"#
        ),
        (true, false) => r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned(),
        (false, _) => r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned(),
    };
    for _ in 0..5 {
        let mut server = spawn(floor);
        if !stateless {
            server.call(INIT);
        }
        let count = if list { 5_000 } else { 20_000 };
        let start = Instant::now();
        for _ in 0..count {
            server.call(&ping);
        }
        rates.push(count as f64 / start.elapsed().as_secs_f64());
        server.finish();
    }
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn pipelined_calls(floor: bool, stateless: bool) -> Duration {
    let meta = if stateless {
        format!(",{STATELESS_META}")
    } else {
        String::new()
    };
    let mut batch = String::new();
    for id in 1..=5000 {
        if floor {
            batch.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"flow_digest\",\"arguments\":{{\"document\":{{\"version\":2,\"id\":\"a\",\"steps\":[{{\"id\":\"s\",\"kind\":\"end\"}}]}}}}}}}}\n"));
        } else {
            batch.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"flow_digest\",\"arguments\":{{\"document\":{{\"version\":2,\"id\":\"a\",\"steps\":[{{\"id\":\"s\",\"kind\":\"end\"}}]}}}}{meta}}}}}\n"));
        }
    }
    let mut times = Vec::new();
    for _ in 0..7 {
        let mut server = spawn(floor);
        if !stateless {
            server.call(INIT);
        }
        let mut stdin = server.stdin;
        let input = batch.clone();
        let start = Instant::now();
        let writer = std::thread::spawn(move || {
            stdin.write_all(input.as_bytes()).unwrap();
            stdin
        });
        let mut line = String::new();
        for _ in 0..5000 {
            line.clear();
            server.stdout.read_line(&mut line).unwrap();
        }
        times.push(start.elapsed());
        server.stdin = writer.join().unwrap();
        server.finish();
    }
    median(times)
}

fn main() {
    if std::env::var_os("BOTMESH_BENCH_FLOOR").is_some() {
        floor_server();
        return;
    }
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    if std::env::args().any(|arg| arg == "--digest") {
        digest_one_mebibyte();
        return;
    }
    if std::env::args().any(|arg| arg == "--eras") {
        compare_eras();
        return;
    }
    println!("botmesh-mcp is {}", server_binary().to_string_lossy());
    for (name, floor) in [("serde_json floor", true), ("botmesh-mcp", false)] {
        let (init, rss, rss_used) = spawn_to_initialize(floor);
        let pings = round_trips_per_second(floor, false, false);
        let calls = pipelined_calls(floor, false);
        println!(
            "{name:>18}: spawn-to-initialize median {:.2} ms, RSS after initialize {:.2} MiB (after tools/list and a call {:.2} MiB), {pings:.0} sequential pings/s, 5,000 pipelined tools/call in {:.1} ms",
            init.as_secs_f64() * 1e3,
            rss as f64 / 1024.0,
            rss_used as f64 / 1024.0,
            calls.as_secs_f64() * 1e3
        );
    }
    compare_eras();
}

/// `flow_digest` of a ~1 MiB document end to end over stdio, and the server's peak RSS.
fn digest_one_mebibyte() {
    let mut steps = Vec::new();
    let mut n = 0;
    let mut size = 0;
    while size < 1024 * 1024 {
        let step = serde_json::json!({
            "id": format!("s{n}"),
            "kind": "message",
            "text": format!("Paso {n}: ¿quieres continuar con tu pedido de pizza, {{{{contact_name}}}}? Escribe sí o no. ✓"),
        });
        size += step.to_string().len() + 1;
        steps.push(step);
        n += 1;
    }
    let document = serde_json::json!({ "version": 2, "id": "big", "steps": steps });
    let mut server = spawn(false);
    server.call(INIT);
    let mut times = Vec::new();
    for id in 1..=31 {
        let request = serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":document}}}).to_string();
        let start = Instant::now();
        let answer = server.call(&request);
        times.push(start.elapsed());
        assert!(answer.contains("sha256:"));
    }
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap_or_default();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|v| v.trim().to_owned())
        .unwrap_or_default();
    let bytes = document.to_string().len();
    println!(
        "flow_digest of a {bytes}-byte document over stdio: median {:.2} ms of 31 calls; server peak RSS {peak}",
        median(times).as_secs_f64() * 1e3
    );
    server.finish();
}

/// 2026-07-28 against the legacy path, interleaved so machine noise hits both alike.
fn compare_eras() {
    let (mut legacy_lists, mut stateless_lists, mut legacy_calls, mut stateless_calls) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        legacy_lists.push(round_trips_per_second(false, true, false));
        stateless_lists.push(round_trips_per_second(false, true, true));
        legacy_calls.push(pipelined_calls(false, false));
        stateless_calls.push(pipelined_calls(false, true));
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let legacy_list = mid(legacy_lists);
    let stateless_list = mid(stateless_lists);
    let legacy_calls = median(legacy_calls);
    let stateless_calls = median(stateless_calls);
    println!(
        "2026-07-28 vs legacy: sequential tools/list {stateless_list:.0}/s vs {legacy_list:.0}/s ({:+.1} %), pipelined 5,000 tools/call {:.1} ms vs {:.1} ms ({:+.1} %)",
        (stateless_list / legacy_list - 1.0) * 100.0,
        stateless_calls.as_secs_f64() * 1e3,
        legacy_calls.as_secs_f64() * 1e3,
        (stateless_calls.as_secs_f64() / legacy_calls.as_secs_f64() - 1.0) * 100.0
    );
}
