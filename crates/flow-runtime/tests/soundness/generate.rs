//! The harness's own generator of flow sets, written to stress the rules that lint and the
//! runtime must read alike (issue 36), not to look like real bots: a few shared variable names
//! so reads and writes collide; every step kind; subflows called from several places, nested,
//! recursive or missing, with and without triggers; declarations with and without defaults;
//! reads in every interpolated field and in conditions, spelled in every hostile way the
//! placeholder rule (runtime spec §5) has to decide; asks of every input kind, with and without
//! `onFail`, `pattern`, `retries` 0–5 and `retryText`.
//!
//! Sets are valid by construction as far as the generator knows the rules; the harness checks
//! each with `validate` and counts the ones it has to skip.

use serde_json::{Map, Value, json};

use crate::rng::Rng;

/// The variables documents write and read: few, so that paths that write one and paths that
/// do not meet often.
pub(crate) const VARIABLES: [&str; 6] = ["name", "email", "total", "ok", "n_1", "_x"];
/// Built-in variables (always set).
const BUILT_INS: [&str; 4] = ["contact_name", "contact_phone", "last_message", "flow_id"];
/// A name no document writes or declares.
const GHOST: &str = "ghost";
/// Action handlers.
pub(crate) const HANDLERS: [&str; 3] = ["crm.lookup", "orders.create", "pay_v2"];
/// Trigger keywords (accents, punctuation, several words).
pub(crate) const KEYWORDS: [&str; 7] = [
    "hola",
    "cita",
    "Menú",
    "pizza grande",
    "¡Ayuda!",
    "info",
    "ok",
];
/// Subflow ids (the document is `main`).
const SUBFLOW_IDS: [&str; 3] = ["sub_a", "sub_b", "sub_c"];

/// `ask.pattern`s, each with replies that match it whole and replies that do not.
pub(crate) const PATTERNS: [(&str, &[&str], &[&str]); 6] = [
    ("[0-9]{3}", &["123", "007"], &["12", "1234", "abc"]),
    ("[a-z]+", &["ana"], &["Ana", "a1"]),
    ("(?i)yes|no", &["YES", "no"], &["yesno", "nope"]),
    ("\\d+", &["7", "2024"], &["٣", "7a"]),
    ("ab.c", &["abXc", "abñc"], &["abc"]),
    ("ñ+|n", &["ññ", "n"], &["nn"]),
];

/// The step kinds and how often each is drawn.
const KINDS: [(&str, &str, usize); 14] = [
    ("message", "msg", 10),
    ("media", "media", 4),
    ("buttons", "menu", 8),
    ("list", "list", 5),
    ("template", "tpl", 4),
    ("location", "loc", 2),
    ("ask", "ask", 14),
    ("branch", "if", 8),
    ("set", "set", 10),
    ("delay", "wait", 2),
    ("action", "act", 6),
    ("subflow", "call", 7),
    ("handoff", "agent", 3),
    ("end", "end", 6),
];

/// Every kind the generator writes (for the harness's coverage count).
pub(crate) fn kinds() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|(kind, _, _)| *kind)
}

/// A flow set: `main`, then zero to three subflows.
pub(crate) fn flow_set(rng: &mut Rng) -> Vec<Value> {
    let subflows = rng.weighted(&[3, 4, 3, 2]);
    let mut ids = vec!["main"];
    ids.extend(&SUBFLOW_IDS[..subflows]);
    ids.iter()
        .enumerate()
        .map(|(index, id)| flow(rng, id, index, &ids))
        .collect()
}

fn flow(rng: &mut Rng, id: &str, index: usize, flow_ids: &[&str]) -> Value {
    let count = if index == 0 {
        rng.range(2, 10)
    } else {
        rng.range(1, 7)
    };
    let weights: Vec<usize> = KINDS.iter().map(|(_, _, weight)| *weight).collect();
    let kinds: Vec<usize> = (0..count).map(|_| rng.weighted(&weights)).collect();
    let ids: Vec<String> = kinds
        .iter()
        .enumerate()
        .map(|(i, &k)| format!("{}{i}", KINDS[k].1))
        .collect();
    let mut steps: Vec<Value> = kinds
        .iter()
        .enumerate()
        .map(|(i, &k)| step(rng, KINDS[k].0, i, &ids, id, flow_ids))
        .collect();
    echo_writes(rng, &mut steps);
    let mut document = Map::new();
    document.insert("version".into(), json!(2));
    document.insert("id".into(), json!(id));
    if rng.chance(if index == 0 { 35 } else { 45 }) {
        document.insert("trigger".into(), trigger(rng));
    }
    if rng.chance(45) {
        document.insert("variables".into(), declarations(rng));
    }
    document.insert("steps".into(), Value::Array(steps));
    Value::Object(document)
}

/// Makes later steps read what earlier ones write, often: a read right after an `ask` is where
/// an exhausted ask without `onFail` shows, and a read after a menu, a `set` or an `action`
/// tests what their edges write.
fn echo_writes(rng: &mut Rng, steps: &mut [Value]) {
    for i in 0..steps.len() {
        let written = ["save", "var"]
            .iter()
            .find_map(|key| steps[i][*key].as_str())
            .map(str::to_owned);
        let Some(var) = written.filter(|_| i + 1 < steps.len() && rng.chance(50)) else {
            continue;
        };
        let j = if rng.chance(60) {
            i + 1
        } else {
            rng.range(i + 1, steps.len() - 1)
        };
        let read = format!(" {{{{{var}}}}}");
        let step = &mut steps[j];
        let field = match step["kind"].as_str() {
            Some("message" | "buttons" | "list" | "ask" | "end" | "handoff") => "text",
            Some("media") if step.get("caption").is_some() => "caption",
            Some("set") if step["value"].is_string() => "value",
            Some("template") => {
                if let Some(Value::Array(parameters)) = step.get_mut("parameters") {
                    parameters.push(Value::String(read));
                }
                continue;
            }
            Some("action") => {
                step["args"]["echo"] = json!([read]);
                continue;
            }
            _ => continue,
        };
        let text = format!("{}{read}", step[field].as_str().unwrap_or(""));
        step[field] = Value::String(text);
    }
}

fn trigger(rng: &mut Rng) -> Value {
    match rng.weighted(&[55, 25, 20]) {
        0 => {
            let mut keywords: Vec<&str> = Vec::new();
            for _ in 0..rng.range(1, 2) {
                let keyword = rng.word(&KEYWORDS);
                if !keywords.contains(&keyword) {
                    keywords.push(keyword);
                }
            }
            let mut trigger = json!({ "keywords": keywords });
            if let Some(mode) =
                rng.pick(&[None, Some("exact"), Some("contains"), Some("startsWith")])
            {
                trigger["match"] = json!(mode);
            }
            trigger
        }
        1 => {
            let mut trigger = json!({ "fallback": true });
            if rng.chance(30) {
                trigger["keywords"] = json!([rng.pick(&KEYWORDS)]);
            }
            trigger
        }
        // A trigger that starts nothing: not an entry (runtime spec §2).
        _ => rng
            .pick(&[
                json!({}),
                json!({ "fallback": false }),
                json!({ "match": "contains" }),
            ])
            .clone(),
    }
}

fn declarations(rng: &mut Rng) -> Value {
    let mut declarations = Map::new();
    for _ in 0..rng.range(1, 3) {
        let name = rng.word(&VARIABLES);
        let (kind, default) = match rng.below(3) {
            0 => ("string", json!(rng.pick(&["guest", "{{name}}", " "]))),
            1 => ("number", json!(rng.pick(&[0, 7, -1]))),
            _ => ("boolean", json!(rng.chance(50))),
        };
        let mut declaration = json!({ "type": kind });
        if rng.chance(50) {
            declaration["default"] = default;
        }
        if rng.chance(10) {
            declaration["description"] = json!("what it holds");
        }
        declarations.insert(name.to_owned(), declaration);
    }
    Value::Object(declarations)
}

/// A step the `next` of step `i` may name: mostly a later one, so runs go somewhere.
fn target(rng: &mut Rng, i: usize, ids: &[String]) -> String {
    if i + 1 < ids.len() && rng.chance(65) {
        ids[rng.range(i + 1, ids.len() - 1)].clone()
    } else {
        rng.pick(ids).clone()
    }
}

fn step(
    rng: &mut Rng,
    kind: &str,
    i: usize,
    ids: &[String],
    flow_id: &str,
    flow_ids: &[&str],
) -> Value {
    let mut step = Map::new();
    step.insert("id".into(), json!(ids[i]));
    step.insert("kind".into(), json!(kind));
    let mut put = |key: &str, value: Value| {
        step.insert(key.to_owned(), value);
    };
    match kind {
        "message" => put("text", text(rng)),
        "media" => {
            let media = rng.word(&["image", "video", "audio", "document", "sticker"]);
            put("media", json!(media));
            put("url", json!("https://example.com/file.bin"));
            if !matches!(media, "audio" | "sticker") && rng.chance(70) {
                put("caption", text(rng));
            }
            if media == "document" && rng.chance(50) {
                put("filename", json!("file.pdf"));
            }
        }
        "buttons" => {
            put("text", text(rng));
            let mut buttons = Vec::new();
            let mut taken: Vec<&str> = Vec::new();
            for _ in 0..rng.range(1, 3) {
                let id = rng.word(&["b0", "b1", "b2", "yes", "no"]);
                if taken.contains(&id) {
                    continue;
                }
                taken.push(id);
                let title = rng.word(&["Yes", "No", "Sí", "Más info", "OK", "yes", "Agent"]);
                let mut button = json!({ "id": id, "title": title });
                if rng.chance(35) {
                    button["next"] = json!(target(rng, i, ids));
                }
                buttons.push(button);
            }
            put("buttons", Value::Array(buttons));
            if rng.chance(15) {
                put("header", json!("Header {{name}}"));
            }
            if rng.chance(15) {
                put("footer", json!("footer"));
            }
            if rng.chance(55) {
                put("save", json!(rng.pick(&VARIABLES)));
            }
        }
        "list" => {
            put("text", text(rng));
            put("button", json!("Choose"));
            let mut sections = Vec::new();
            let mut row = 0;
            for _ in 0..rng.range(1, 2) {
                let mut rows = Vec::new();
                for _ in 0..rng.range(1, 3) {
                    let title = rng.word(&["Pizza", "Pasta", "Menú del día", "Agent", "r0"]);
                    let mut item = json!({ "id": format!("r{row}"), "title": title });
                    row += 1;
                    if rng.chance(20) {
                        item["description"] = json!("{{total}} left");
                    }
                    if rng.chance(30) {
                        item["next"] = json!(target(rng, i, ids));
                    }
                    rows.push(item);
                }
                let mut section = json!({ "rows": rows });
                if rng.chance(40) {
                    section["title"] = json!("Food");
                }
                sections.push(section);
            }
            put("sections", Value::Array(sections));
            if rng.chance(55) {
                put("save", json!(rng.pick(&VARIABLES)));
            }
        }
        "template" => {
            put("name", json!(rng.pick(&["order_update", "hello_world"])));
            put("language", json!(rng.pick(&["es", "pt_BR", "en_US"])));
            if rng.chance(75) {
                let parameters: Vec<Value> = (0..rng.range(0, 3)).map(|_| text(rng)).collect();
                put("parameters", Value::Array(parameters));
            }
        }
        "location" => {
            put("latitude", json!(rng.range(0, 180) as f64 - 90.0));
            put("longitude", json!(rng.range(0, 360) as f64 / 2.0 - 90.0));
            if rng.chance(40) {
                put("name", json!("Office {{name}}"));
            }
            if rng.chance(40) {
                put("address", json!("Calle 5"));
            }
        }
        "ask" => {
            put("text", text(rng));
            put("save", json!(rng.pick(&VARIABLES)));
            let input = rng.word(&["text", "text", "number", "email", "phone", "date", "yesno"]);
            if input != "text" || rng.chance(50) {
                put("input", json!(input));
            }
            if input == "text" && rng.chance(40) {
                put("pattern", json!(rng.pick(&PATTERNS).0));
            }
            if rng.chance(70) {
                put("retries", json!(rng.range(0, 5)));
            }
            if rng.chance(40) {
                put("retryText", text(rng));
            }
            if rng.chance(45) {
                put("onFail", json!(target(rng, i, ids)));
            }
        }
        "branch" => {
            let cases: Vec<Value> = (0..rng.range(1, 3))
                .map(|_| json!({ "when": condition(rng, 0), "next": target(rng, i, ids) }))
                .collect();
            put("cases", Value::Array(cases));
            if rng.chance(50) {
                put("default", json!(target(rng, i, ids)));
            }
        }
        "set" => {
            put("var", json!(rng.pick(&VARIABLES)));
            let value = match rng.weighted(&[55, 15, 15, 15]) {
                0 => text(rng),
                1 => json!(rng.pick(&[0.0, 2.5, -3.0, 1e21])),
                2 => json!(rng.chance(50)),
                _ => Value::Null,
            };
            put("value", value);
        }
        "delay" => {
            put("seconds", json!(rng.range(1, 3)));
            if rng.chance(50) {
                put("typing", json!(rng.chance(50)));
            }
        }
        "action" => {
            put("handler", json!(rng.pick(&HANDLERS)));
            if rng.chance(75) {
                put("args", args(rng, 0));
            }
            if rng.chance(60) {
                put("save", json!(rng.pick(&VARIABLES)));
            }
        }
        "subflow" => {
            let others: Vec<&str> = flow_ids.iter().copied().filter(|f| *f != flow_id).collect();
            let called = match rng.weighted(&[75, 10, 15]) {
                0 if !others.is_empty() => rng.word(&others),
                1 => flow_id,
                _ => rng.word(&["nowhere", "main"]),
            };
            put("flow", json!(called));
        }
        "handoff" => {
            if rng.chance(50) {
                put("queue", json!("sales"));
            }
            if rng.chance(65) {
                put("text", text(rng));
            }
        }
        "end" => {
            if rng.chance(65) {
                put("text", text(rng));
            }
        }
        other => unreachable!("kind {other}"),
    }
    if !matches!(kind, "branch" | "handoff" | "end") && rng.chance(40) {
        step.insert("next".into(), json!(target(rng, i, ids)));
    }
    Value::Object(step)
}

/// A variable to read: mostly one documents write, sometimes a built-in or one nobody writes.
fn read_name(rng: &mut Rng) -> &'static str {
    match rng.weighted(&[80, 14, 6]) {
        0 => rng.word(&VARIABLES),
        1 => rng.word(&BUILT_INS),
        _ => GHOST,
    }
}

/// A placeholder for `name`, spelled as authors (and attackers) spell them.
fn placeholder(rng: &mut Rng, name: &str) -> String {
    let other = rng.word(&VARIABLES);
    let forms: [(usize, String); 18] = [
        (40, format!("{{{{{name}}}}}")),
        (8, format!("{{{{ {name} }}}}")),
        (5, format!("{{{{{name} }}}}")),
        (5, format!("{{{{ {name}}}}}")),
        (3, format!("{{{{  {name}   }}}}")),
        (6, format!("{{{{{{{name}}}}}}}")),
        (4, format!("{{{{{name}}}}}}}")),
        (4, format!("{{{{{{{name}}}}}")),
        (2, "{{}}".to_owned()),
        (2, format!("{{{{{}}}}}", name.to_uppercase())),
        (2, format!("{{{{ {name}}}")),
        (1, format!("{{{{{name}")),
        (2, format!("{{{{{other}{{{{{name}}}}}}}}}")),
        (1, "{{ñandú}}".to_owned()),
        (1, format!("{{{{\t{name}}}}}")),
        (1, format!("{{{{{name}.x}}}}")),
        (1, format!("{{{{ {{{{{name}}}}} }}}}")),
        (2, format!("{{{{{name}}}}}{{{{{name}}}}}")),
    ];
    let weights: Vec<usize> = forms.iter().map(|(w, _)| *w).collect();
    forms[rng.weighted(&weights)].1.clone()
}

/// An interpolated text: one to three pieces, literal or placeholder; never empty.
pub(crate) fn text(rng: &mut Rng) -> Value {
    let mut out = String::new();
    for _ in 0..rng.range(1, 3) {
        if rng.chance(60) {
            let name = read_name(rng);
            out.push_str(&placeholder(rng, name));
        } else {
            let piece = rng.word(&[
                "Hi ", "Total: ", "¡Olá! ", "ok", " — ", "a{b}c", " }} ", "{", "}", "ñandú ", "😀",
                "{{", " ",
            ]);
            out.push_str(piece);
        }
    }
    if out.is_empty() {
        out.push_str("ok");
    }
    Value::String(out)
}

fn condition(rng: &mut Rng, depth: usize) -> Value {
    if depth < 3 && rng.chance(25) {
        return match rng.below(3) {
            0 => json!({ "not": condition(rng, depth + 1) }),
            n => {
                let children: Vec<Value> = (0..rng.range(1, 3))
                    .map(|_| condition(rng, depth + 1))
                    .collect();
                json!({ if n == 1 { "all" } else { "any" }: children })
            }
        };
    }
    let var = read_name(rng);
    let ops = [
        ("exists", 15),
        ("eq", 15),
        ("ne", 10),
        ("lt", 3),
        ("lte", 3),
        ("gt", 3),
        ("gte", 3),
        ("contains", 8),
        ("startsWith", 6),
        ("matches", 6),
        ("in", 8),
    ];
    let weights: Vec<usize> = ops.iter().map(|(_, w)| *w).collect();
    let op = ops[rng.weighted(&weights)].0;
    let value = match op {
        "exists" => return json!({ "var": var, "op": op }),
        "eq" | "ne" => scalar(rng),
        "lt" | "lte" | "gt" | "gte" => rng
            .pick(&[json!(0), json!(1), json!(2.5), json!(-3)])
            .clone(),
        "contains" | "startsWith" => json!(rng.pick(&["a", "An", "ñ", "b0"])),
        "matches" => json!(rng.pick(&["^a", "[0-9]+", "(?i)ok", "b\\d"])),
        _ => Value::Array((0..rng.range(1, 3)).map(|_| scalar(rng)).collect()),
    };
    json!({ "var": var, "op": op, "value": value })
}

/// A JSON scalar of any type, null included.
pub(crate) fn scalar(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!(rng.pick(&["Ana", "yes", "b0", "r1", "x"])),
        1 => rng
            .pick(&[json!(0), json!(1), json!(2.5), json!(-3)])
            .clone(),
        2 => json!(rng.chance(50)),
        _ => Value::Null,
    }
}

/// `action.args`: an object whose strings, at any depth, are interpolated (object keys are
/// not, so a key may hold a placeholder that is no read).
fn args(rng: &mut Rng, depth: usize) -> Value {
    let mut object = Map::new();
    for _ in 0..rng.range(1, 3) {
        let key = rng.word(&["to", "items", "meta", "{{name}}", "note"]);
        object.insert(key.to_owned(), arg(rng, depth + 1));
    }
    Value::Object(object)
}

fn arg(rng: &mut Rng, depth: usize) -> Value {
    let nested = if depth < 4 { 15 } else { 0 };
    match rng.weighted(&[40, 15, 10, 5, nested, nested]) {
        0 => text(rng),
        1 => json!(rng.pick(&[0, 42, -1])),
        2 => json!(rng.chance(50)),
        3 => Value::Null,
        4 => Value::Array((0..rng.range(1, 3)).map(|_| arg(rng, depth + 1)).collect()),
        _ => args(rng, depth),
    }
}
