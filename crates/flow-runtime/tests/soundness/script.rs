//! Random conversations with a generated set: how it starts (the document's flow, a first
//! message that hits a trigger or the fallback, or a named flow, entry or not), the initial
//! variables, the handler mocks, and replies chosen one at a time for the step the bot waits at
//! (taps on offered and unoffered ids, typed titles, blank replies, valid and invalid values of
//! each input kind, pattern hits and misses), with a per-run mood that decides how often the
//! user fails, so asks run out of retries as often as they are answered.
//!
//! Replies are chosen by simulating the replies so far through `simulate` (the `flow_simulate`
//! engine) and reading where the bot waits: only the public JSON result is used.

use botmesh_flow_runtime::FlowSet;
use serde_json::{Map, Value, json};

use crate::generate::{HANDLERS, KEYWORDS, PATTERNS, VARIABLES, scalar};
use crate::oracle::{Run, simulate};
use crate::rng::Rng;

/// The most replies one run sends.
const MOST_REPLIES: usize = 12;

/// Blank replies: the empty text stands for a sticker, a voice note or a photo (runtime §4).
const BLANKS: [&str; 4] = ["", "   ", "\u{3000}", "\n"];

/// Replies sent whatever the bot waits for.
const NOISE: [&str; 12] = [
    "hola",
    "Yes",
    "b0",
    "42",
    "ana@example.com",
    "2024-02-29",
    "Pizza",
    "no",
    "menu",
    "¡Cita!",
    "sí",
    "r0",
];

/// First messages: triggers exactly, in other case and accents, inside other words, or none.
const FIRST_MESSAGES: [&str; 12] = [
    "hola",
    "HOLA",
    "quiero una cita",
    "cita_hoy",
    "felicitaciones",
    "menu",
    "Menú del día",
    "pizza grande ya",
    "¡ayuda!",
    "info?",
    "nada que ver",
    "",
];

/// One run of `docs` (compiled as `set`) and its result.
pub(crate) fn run(rng: &mut Rng, docs: &[Value], set: &FlowSet<'_>) -> (Run, Map<String, Value>) {
    let start = match rng.weighted(&[35, 35, 30]) {
        0 => None,
        1 => Some(json!({ "message": first_message(rng) })),
        _ => Some(json!({ "flow": rng.pick(docs)["id"] })),
    };
    let mut run = Run {
        start,
        ..Run::default()
    };
    if rng.chance(20) {
        for _ in 0..rng.range(1, 2) {
            run.variables
                .insert(rng.word(&VARIABLES).to_owned(), scalar(rng));
        }
    }
    for handler in HANDLERS {
        let mock = match rng.weighted(&[45, 15, 10, 30]) {
            0 => json!({ "returns": mock_value(rng) }),
            1 => json!({ "returnsEach": [mock_value(rng), mock_value(rng)] }),
            2 => json!({ "fails": "down" }),
            _ => continue,
        };
        run.handlers.insert(handler.to_owned(), mock);
    }
    let fails = *rng.pick(&[10, 45, 85]);
    let replies = rng.range(0, MOST_REPLIES);
    loop {
        let result = simulate(set, &run);
        let outcome = &result["outcome"];
        if run.replies.len() >= replies || outcome["kind"] != "waiting" {
            return (run, result);
        }
        let waiting = step(docs, &outcome["flow"], &outcome["step"]);
        let reply = match waiting {
            Some(step) if !rng.chance(8) => reply(rng, step, fails),
            _ => json!(rng.pick(&NOISE)),
        };
        run.replies.push(reply);
    }
}

fn first_message(rng: &mut Rng) -> String {
    if rng.chance(40) {
        rng.word(&KEYWORDS).to_owned()
    } else {
        rng.word(&FIRST_MESSAGES).to_owned()
    }
}

/// A handler result: mostly a value a read can print, sometimes null.
fn mock_value(rng: &mut Rng) -> Value {
    if rng.chance(12) {
        Value::Null
    } else {
        json!(rng.pick(&[json!("A-17"), json!(3), json!(true), json!("")]))
    }
}

/// The step `step` of flow `flow` in `docs`.
pub(crate) fn step<'d>(docs: &'d [Value], flow: &Value, step: &Value) -> Option<&'d Value> {
    docs.iter()
        .find(|doc| doc["id"] == *flow)?
        .get("steps")?
        .as_array()?
        .iter()
        .find(|s| s["id"] == *step)
}

/// A reply to the waiting `step`: a failing one `fails` times in a hundred.
fn reply(rng: &mut Rng, step: &Value, fails: usize) -> Value {
    let failing = rng.chance(fails);
    let text = |value: &str, rng: &mut Rng| {
        if rng.chance(10) {
            json!({ "text": value })
        } else {
            json!(value)
        }
    };
    match step["kind"].as_str() {
        Some("buttons" | "list") => {
            let items: Vec<&Value> = match step.get("buttons") {
                Some(Value::Array(buttons)) => buttons.iter().collect(),
                _ => step["sections"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s["rows"].as_array())
                    .flatten()
                    .collect(),
            };
            let item = rng.pick(&items);
            match (failing, rng.below(2)) {
                (true, 0) => text(rng.word(&BLANKS), rng),
                (true, _) => json!({ "tap": rng.pick(&["zz", "b2", "r9", "yes"]) }),
                (false, 0) => json!({ "tap": item["id"] }),
                (false, _) => {
                    let title = item["title"].as_str().unwrap_or("");
                    let typed = match rng.below(3) {
                        0 => title.to_owned(),
                        1 => title.to_uppercase(),
                        _ => format!("  {title} "),
                    };
                    text(&typed, rng)
                }
            }
        }
        Some("ask") => {
            let input = step["input"].as_str().unwrap_or("text");
            let pattern = step["pattern"]
                .as_str()
                .and_then(|p| PATTERNS.iter().find(|(q, _, _)| *q == p));
            let (good, bad): (&[&str], &[&str]) = match (input, pattern) {
                (_, Some((_, hits, misses))) => (hits, misses),
                ("number", _) => (
                    &["42", "-3,5", "+7", ".5", "1.25"],
                    &["abc", "1,2,3", "4 2", "1e3"],
                ),
                ("email", _) => (
                    &["ana@example.com", "x.y@mail.co"],
                    &["ana@", "a b@c.d", "@x.y"],
                ),
                ("phone", _) => (
                    &["+57 300 123 4567", "(555) 123-4567", "5551234567"],
                    &["12", "phone", "+1 23"],
                ),
                ("date", _) => (
                    &["2024-02-29", "31/12/1999", "1.2.2000", "05-06-2030"],
                    &["2023-02-29", "12/31/1999", "2024-1-1", "1899-12-31"],
                ),
                ("yesno", _) => (
                    &["sí", "Yes", "n", "OK", "false", "S"],
                    &["maybe", "si no", "yes!"],
                ),
                _ => (&["Ana", "Calle 5 #10", "b0", "¿Qué?"], &[]),
            };
            if failing {
                if bad.is_empty() || rng.chance(50) {
                    text(rng.word(&BLANKS), rng)
                } else {
                    text(rng.word(bad), rng)
                }
            } else if rng.chance(10) {
                json!({ "tap": "b0" })
            } else {
                text(rng.word(good), rng)
            }
        }
        _ => json!(rng.pick(&NOISE)),
    }
}
