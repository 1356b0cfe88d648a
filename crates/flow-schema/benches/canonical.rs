//! Benchmarks of `validate`, `migrate` and `digest` on generated ~1 KB and ~1 MiB documents.
//!
//! `cargo bench -p botmesh-flow-schema --bench canonical` prints the median of several runs
//! for each. `-- json > doc.json` writes the 1 MiB document; `-- rss < doc.json` parses and
//! digests a document from stdin once and prints the process's peak resident set (Linux).
//! `-- migrate` only runs twenty 0 → 1 migrations of the 1 MiB legacy document, for a profiler.
#![expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use botmesh_flow_schema::{canonical_json, digest, migrate, validate};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A version 2 document of `steps` steps of mixed kinds, with Spanish and English text.
fn v2_document(steps: usize) -> Value {
    let steps: Vec<Value> = (0..steps)
        .map(|i| {
            let id = format!("paso_{i}");
            let next = format!("paso_{}", (i + 1) % steps.max(1));
            match i % 5 {
                0 => json!({ "id": id, "kind": "message", "next": next,
                    "text": format!("¡Hola {{{{contact_name}}}}! Mensaje número {i}: tu pedido está en camino 🍕, llegará pronto.") }),
                1 => json!({ "id": id, "kind": "buttons", "text": "¿Qué tamaño quieres?",
                    "buttons": [
                        { "id": "pequena", "title": "Pequeña", "next": next },
                        { "id": "mediana", "title": "Mediana" },
                        { "id": "familiar", "title": "Familiar" } ] }),
                2 => json!({ "id": id, "kind": "ask", "text": "What is your delivery address?",
                    "save": format!("address_{i}"), "input": "text", "retries": 2, "next": next }),
                3 => json!({ "id": id, "kind": "delay", "seconds": 1.5e0 * 2.0, "typing": true }),
                _ => json!({ "id": id, "kind": "location", "latitude": 40.416_775, "longitude": -3.703_790,
                    "name": "Pizzería Vesubio", "address": "Calle Mayor 1, Madrid", "next": next }),
            }
        })
        .collect();
    json!({
        "version": 2,
        "id": "bench",
        "metadata": { "title": "Benchmark flow", "locale": "es" },
        "steps": steps,
    })
}

/// A version 0 document of `steps` legacy steps.
fn v0_document(steps: usize) -> Value {
    let steps: Vec<Value> = (0..steps)
        .map(|i| match i % 4 {
            0 => json!({ "type": "text", "message": format!("Hola, este es el mensaje {i} del flujo heredado.") }),
            1 => json!({ "id": format!("m{i}"), "type": "menu", "message": "Elige una opción",
                "options": ["Ver catálogo", "Estado de mi pedido", "Hablar con un asesor humano"] }),
            2 => json!({ "type": "question", "message": "¿Cuál es tu correo?", "variable": format!("correo_{i}") }),
            _ => json!({ "type": "wait", "ms": 1500 }),
        })
        .collect();
    json!({ "name": "Flujo heredado de prueba", "steps": steps })
}

/// A document of about `bytes` bytes of JSON text, made by `make` with enough steps.
fn sized(bytes: usize, make: fn(usize) -> Value) -> (Value, String) {
    let per_step = make(10).to_string().len() / 10;
    let document = make((bytes / per_step).max(1));
    let text = serde_json::to_string(&document).expect("a Value always serializes");
    (document, text)
}

/// Median duration of one call, over `samples` samples of `iterations` calls each.
fn median(samples: usize, iterations: u32, mut run: impl FnMut()) -> Duration {
    run();
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                run();
            }
            start.elapsed() / iterations
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn report(name: &str, size: &str, time: Duration) {
    println!(
        "{name:<38} {size:>8}  median {:>10.3} ms",
        time.as_secs_f64() * 1e3
    );
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmHWM:"))
                .map(|line| line.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn main() {
    if std::env::args().any(|arg| arg == "migrate") {
        let (v0, _) = sized(1 << 20, v0_document);
        for _ in 0..20 {
            black_box(migrate(black_box(&v0), 1).expect("version 0 migrates"));
        }
        return;
    }
    if std::env::args().any(|arg| arg == "json") {
        println!("{}", sized(1 << 20, v2_document).1);
        return;
    }
    if std::env::args().any(|arg| arg == "rss") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).expect("stdin is UTF-8");
        println!(
            "peak RSS after reading {} bytes: {}",
            text.len(),
            peak_rss()
        );
        let document: Value = serde_json::from_str(&text).expect("stdin is a JSON document");
        println!("peak RSS after parsing: {}", peak_rss());
        println!("{}", digest(&document).digest);
        println!("peak RSS after digesting: {}", peak_rss());
        return;
    }
    for (size, bytes, samples, iterations) in
        [("~1 KB", 1024, 11, 2000), ("~1 MiB", 1 << 20, 11, 3)]
    {
        let (v2, v2_text) = sized(bytes, v2_document);
        let (v0, v0_text) = sized(bytes, v0_document);
        let label = |text: &str| format!("{size} ({} B)", text.len());
        println!(
            "-- {} v2 document, {} steps; v0 document {} B",
            label(&v2_text),
            v2["steps"].as_array().map_or(0, Vec::len),
            v0_text.len()
        );
        println!(
            "   validate finds {} issues in it",
            validate(&v2).issues.len()
        );
        report(
            "validate",
            size,
            median(samples, iterations, || {
                black_box(validate(black_box(&v2)));
            }),
        );
        report(
            "migrate v0 -> 2 (includes validate)",
            size,
            median(samples, iterations, || {
                black_box(migrate(black_box(&v0), 2).expect("version 0 migrates"));
            }),
        );
        report(
            "digest (parsed document)",
            size,
            median(samples, iterations, || {
                black_box(digest(black_box(&v2)));
            }),
        );
        report(
            "parse + digest (from text)",
            size,
            median(samples, iterations, || {
                let document: Value = serde_json::from_str(black_box(&v2_text)).expect("parses");
                black_box(digest(&document));
            }),
        );
        report(
            "canonical_json",
            size,
            median(samples, iterations, || {
                black_box(canonical_json(black_box(&v2)));
            }),
        );
        report(
            "baseline: serde_jcs + sha2",
            size,
            median(samples, iterations, || {
                let text = serde_jcs::to_vec(black_box(&v2)).expect("serializes");
                black_box(Sha256::digest(&text));
            }),
        );
    }
}
