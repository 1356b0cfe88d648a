//! The schema and `validate` agree on generated documents (spec §3), and the schema's own shape.
//!
//! The standard validator is the `jsonschema` crate (dev-dependency only, without its HTTP and
//! file resolvers): an independent draft 2020-12 implementation is the point of the test.
use serde_json::{Map, Value, json};

use crate::StepKind;
use crate::{json_schema, json_schema_string, limits_json, step_kinds, validate};

/// SplitMix64: a small, seeded, deterministic generator (no dependency, same sequence everywhere).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A string of exactly `len` characters, made of one- to four-byte characters.
fn text_of(rng: &mut Rng, len: usize) -> String {
    let alphabet = ['a', 'Z', ' ', 'é', 'ñ', '€', '😀', '{', '}'];
    let c = *rng.pick(&alphabet);
    std::iter::repeat_n(c, len).collect()
}

/// A string whose length is either a boundary (`min`, `max`) or in between.
fn text(rng: &mut Rng, min: usize, max: usize) -> Value {
    let len = match rng.below(4) {
        0 => min,
        1 => max,
        _ => min + rng.below(max.min(40) - min + 1),
    };
    Value::String(text_of(rng, len))
}

fn step_id(i: usize) -> String {
    format!("s{i}")
}

fn condition(rng: &mut Rng, depth: usize) -> Value {
    if depth < 3 && rng.chance(30) {
        return match rng.below(3) {
            0 => {
                json!({ "all": (0..1 + rng.below(3)).map(|_| condition(rng, depth + 1)).collect::<Vec<_>>() })
            }
            1 => {
                json!({ "any": (0..1 + rng.below(3)).map(|_| condition(rng, depth + 1)).collect::<Vec<_>>() })
            }
            _ => json!({ "not": condition(rng, depth + 1) }),
        };
    }
    let var = rng.pick(&["name", "age", "_x", "contact_name"]).to_string();
    match rng.below(11) {
        0 => json!({ "var": var, "op": "exists" }),
        1 => {
            json!({ "var": var, "op": "eq", "value": rng.pick(&[json!(null), json!(1), json!("x"), json!(true), json!("é")]).clone() })
        }
        2 => json!({ "var": var, "op": "ne", "value": "no" }),
        3 => json!({ "var": var, "op": "lt", "value": 18 }),
        4 => json!({ "var": var, "op": "lte", "value": 1.5 }),
        5 => json!({ "var": var, "op": "gt", "value": -3 }),
        6 => json!({ "var": var, "op": "gte", "value": 0 }),
        7 => json!({ "var": var, "op": "contains", "value": "pizza" }),
        8 => json!({ "var": var, "op": "startsWith", "value": "+34" }),
        9 => json!({ "var": var, "op": "matches", "value": "^[0-9]{5}$" }),
        _ => json!({ "var": var, "op": "in", "value": ["a", 1, null, false] }),
    }
}

fn maybe(rng: &mut Rng, object: &mut Map<String, Value>, key: &str, value: Value) {
    if rng.chance(50) {
        object.insert(key.to_owned(), value);
    }
}

/// A shape-valid step of the given kind; `count` is the number of steps (targets `s0..`).
fn step(rng: &mut Rng, kind: &str, i: usize, count: usize) -> Value {
    let mut s = Map::new();
    s.insert("id".into(), json!(step_id(i)));
    s.insert("kind".into(), json!(kind));
    let target = |rng: &mut Rng| json!(step_id(rng.below(count)));
    match kind {
        "message" => {
            s.insert("text".into(), text(rng, 1, 4096));
        }
        "media" => {
            let media = *rng.pick(&["image", "video", "audio", "document", "sticker"]);
            s.insert("media".into(), json!(media));
            let len = rng.below(5) + 1;
            let path = text_of(rng, len).replace(' ', "_");
            s.insert(
                "url".into(),
                json!(format!("https://cdn.example.com/{path}")),
            );
            if !matches!(media, "audio" | "sticker") {
                let caption = text(rng, 1, 1024);
                maybe(rng, &mut s, "caption", caption);
            }
            if media == "document" {
                let filename = text(rng, 1, 240);
                maybe(rng, &mut s, "filename", filename);
            }
        }
        "buttons" => {
            s.insert("text".into(), text(rng, 1, 1024));
            let n = 1 + rng.below(3);
            let buttons: Vec<Value> = (0..n)
                .map(|b| {
                    let mut button = json!({ "id": format!("b{b}"), "title": text(rng, 1, 20) });
                    if rng.chance(50) {
                        button["next"] = target(rng);
                    }
                    button
                })
                .collect();
            s.insert("buttons".into(), Value::Array(buttons));
            let header = text(rng, 1, 60);
            maybe(rng, &mut s, "header", header);
            let footer = text(rng, 1, 60);
            maybe(rng, &mut s, "footer", footer);
        }
        "list" => {
            s.insert("text".into(), text(rng, 1, 4096));
            s.insert("button".into(), text(rng, 1, 20));
            let sections = 1 + rng.below(3);
            let mut row = 0;
            let sections: Vec<Value> = (0..sections)
                .map(|_| {
                    let rows: Vec<Value> = (0..1 + rng.below(3))
                        .map(|_| {
                            row += 1;
                            let mut r =
                                json!({ "id": format!("r{row}"), "title": text(rng, 1, 24) });
                            if rng.chance(50) {
                                r["description"] = text(rng, 1, 72);
                            }
                            if rng.chance(50) {
                                r["next"] = target(rng);
                            }
                            r
                        })
                        .collect();
                    let mut section = json!({ "rows": rows });
                    if rng.chance(50) {
                        section["title"] = text(rng, 1, 24);
                    }
                    section
                })
                .collect();
            s.insert("sections".into(), Value::Array(sections));
        }
        "template" => {
            s.insert("name".into(), json!(rng.pick(&["order_ready", "a", "x_1"])));
            s.insert("language".into(), json!(rng.pick(&["en", "pt_BR", "spa"])));
            let parameters: Vec<Value> = (0..rng.below(3)).map(|_| text(rng, 1, 1024)).collect();
            maybe(rng, &mut s, "parameters", Value::Array(parameters));
        }
        "location" => {
            s.insert(
                "latitude".into(),
                json!(rng.pick(&[-90.0, 0.5, 90.0, 40.4168])),
            );
            s.insert("longitude".into(), json!(rng.pick(&[-180, 0, 180, -3])));
            let name = text(rng, 1, 100);
            maybe(rng, &mut s, "name", name);
            let address = text(rng, 1, 300);
            maybe(rng, &mut s, "address", address);
        }
        "ask" => {
            s.insert("text".into(), text(rng, 1, 4096));
            s.insert("save".into(), json!(rng.pick(&["name", "age", "_x"])));
            let input = *rng.pick(&["text", "number", "email", "phone", "date", "yesno"]);
            maybe(rng, &mut s, "input", json!(input));
            if input == "text" || !s.contains_key("input") {
                maybe(rng, &mut s, "pattern", json!("^\\d+$"));
            }
            let retries = rng
                .pick(&[json!(0), json!(5), json!(2.0), json!(3)])
                .clone();
            maybe(rng, &mut s, "retries", retries);
            let retry = text(rng, 1, 1024);
            maybe(rng, &mut s, "retryText", retry);
            let fail = target(rng);
            maybe(rng, &mut s, "onFail", fail);
        }
        "branch" => {
            let cases: Vec<Value> = (0..1 + rng.below(3))
                .map(|_| json!({ "when": condition(rng, 1), "next": target(rng) }))
                .collect();
            s.insert("cases".into(), Value::Array(cases));
            let default = target(rng);
            maybe(rng, &mut s, "default", default);
        }
        "set" => {
            s.insert("var".into(), json!(rng.pick(&["name", "total"])));
            s.insert(
                "value".into(),
                rng.pick(&[
                    json!(null),
                    json!("😀"),
                    json!("{{name}}"),
                    json!(3.5),
                    json!(false),
                ])
                .clone(),
            );
        }
        "delay" => {
            s.insert(
                "seconds".into(),
                rng.pick(&[json!(1), json!(86400), json!(30.0), json!(2e0)])
                    .clone(),
            );
            let typing = json!(rng.chance(50));
            maybe(rng, &mut s, "typing", typing);
        }
        "action" => {
            s.insert(
                "handler".into(),
                json!(rng.pick(&["orders.create", "Ping", "a_b.c"])),
            );
            maybe(
                rng,
                &mut s,
                "args",
                json!({ "size": "L", "items": [1, {"x": null}], "deep": {"a": {"b": []}} }),
            );
            maybe(rng, &mut s, "save", json!("result"));
        }
        "subflow" => {
            s.insert(
                "flow".into(),
                json!(rng.pick(&["payment", "a", "help-desk_2"])),
            );
        }
        "handoff" => {
            let queue = text(rng, 1, 64);
            maybe(rng, &mut s, "queue", queue);
            let t = text(rng, 1, 1024);
            maybe(rng, &mut s, "text", t);
        }
        _ => {
            let t = text(rng, 1, 4096);
            maybe(rng, &mut s, "text", t);
        }
    }
    if !matches!(kind, "branch" | "handoff" | "end") {
        let next = target(rng);
        maybe(rng, &mut s, "next", next);
    }
    Value::Object(s)
}

fn document(rng: &mut Rng) -> Value {
    let count = 1 + rng.below(6);
    let steps: Vec<Value> = (0..count)
        .map(|i| {
            let kind = *rng.pick(StepKind::NAMES);
            step(rng, kind, i, count)
        })
        .collect();
    let mut d = Map::new();
    d.insert("version".into(), json!(2));
    d.insert(
        "id".into(),
        json!(rng.pick(&["pizza", "a", "clinic-booking_2"])),
    );
    d.insert("steps".into(), Value::Array(steps));
    maybe(rng, &mut d, "$schema", json!("../schema/flow.schema.json"));
    let metadata = json!({
        "title": text(rng, 1, 120),
        "description": text(rng, 1, 1000),
        "locale": rng.pick(&["es", "pt-BR", "ast"]),
        "tags": ["food", "es"],
    });
    maybe(rng, &mut d, "metadata", metadata);
    let trigger = json!({ "keywords": ["pizza", "hola"], "match": rng.pick(&["exact", "contains", "startsWith"]), "fallback": false });
    maybe(rng, &mut d, "trigger", trigger);
    let variables = json!({
        "name": { "type": "string", "default": "x", "description": text(rng, 1, 200) },
        "total": { "type": "number", "default": 0 },
        "vip": { "type": "boolean" },
    });
    maybe(rng, &mut d, "variables", variables);
    Value::Object(d)
}

/// Every pointer in a value, for picking a place to mutate.
fn pointers(value: &Value, path: &mut String, out: &mut Vec<String>) {
    out.push(path.clone());
    let mark = path.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                pointers(v, path, out);
                path.truncate(mark);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push_str(&format!("/{i}"));
                pointers(v, path, out);
                path.truncate(mark);
            }
        }
        _ => {}
    }
}

const UNKNOWN_KEYS: [&str; 14] = [
    "type", "foo", "buttons", "caption", "filename", "pattern", "next", "value", "default", "text",
    "all", "op", "$schema", "a/b~c",
];

fn repeat(c: char, n: usize) -> String {
    std::iter::repeat_n(c, n).collect()
}

fn strings(n: usize) -> Value {
    Value::Array((0..n).map(|i| json!(format!("w{i}"))).collect())
}

fn copies(value: Value, n: usize) -> Value {
    Value::Array(std::iter::repeat_n(value, n).collect())
}

/// The properties that [`edge_values`] knows.
const EDGE_KEYS: [&str; 50] = [
    "url",
    "value",
    "latitude",
    "longitude",
    "retries",
    "seconds",
    "version",
    "id",
    "locale",
    "language",
    "name",
    "handler",
    "flow",
    "var",
    "save",
    "next",
    "onFail",
    "default",
    "tags",
    "keywords",
    "variables",
    "input",
    "media",
    "op",
    "type",
    "match",
    "kind",
    "parameters",
    "buttons",
    "cases",
    "sections",
    "rows",
    "all",
    "any",
    "$schema",
    "typing",
    "fallback",
    "pattern",
    "when",
    "queue",
    "caption",
    "retryText",
    "text",
    "filename",
    "header",
    "footer",
    "button",
    "title",
    "description",
    "address",
];

/// Strings of these lengths, in characters of two and four bytes.
fn lengths(lengths: &[usize]) -> Vec<Value> {
    lengths
        .iter()
        .flat_map(|n| [json!(repeat('é', *n)), json!(repeat('😀', *n))])
        .collect()
}

/// Values at and around the limits of the property `key`.
fn edge_values(key: &str) -> Vec<Value> {
    let url = |n: usize| json!(format!("https://{}", repeat('é', n - 8)));
    let exists = json!({ "var": "x", "op": "exists" });
    let declaration = json!({ "type": "boolean" });
    let variables = |n: usize| {
        Value::Object(
            (0..n)
                .map(|i| (format!("v{i}"), declaration.clone()))
                .collect(),
        )
    };
    match key {
        "url" => vec![
            json!("https://"),
            json!("https://a b"),
            json!("http://cdn.example.com/a"),
            json!("https://x\u{85}"),
            json!("https://x\u{3000}"),
            json!("https://x\u{7f}"),
            json!("https://\u{e9}"),
            url(2048),
            url(2049),
        ],
        "value" => vec![
            json!("5"),
            json!(5),
            json!(null),
            json!([]),
            json!([1]),
            json!(["a", [1]]),
            json!(""),
            json!(["a", ""]),
            json!([""]),
            json!("é"),
            json!({}),
            json!(true),
            copies(json!(1), 50),
            copies(json!(1), 51),
        ],
        "latitude" => vec![
            json!(90),
            json!(90.0001),
            json!(-90),
            json!(-90.5),
            json!("1"),
        ],
        "longitude" => vec![json!(180), json!(180.5), json!(-181), json!(-180)],
        "retries" => vec![
            json!(0),
            json!(5),
            json!(6),
            json!(5.0),
            json!(-1),
            json!(2.5),
        ],
        "seconds" => vec![
            json!(0),
            json!(1),
            json!(86400),
            json!(86401),
            json!(1.0),
            json!(1e2),
            json!(0.5),
        ],
        "version" => vec![
            json!(2),
            json!(2.0),
            json!(1),
            json!(0),
            json!(3),
            json!("2"),
            json!(null),
        ],
        "id" => vec![
            json!("A"),
            json!("a-b_c"),
            json!("9"),
            json!(""),
            json!(repeat('a', 64)),
            json!(repeat('a', 65)),
            json!("\u{e9}"),
            json!(repeat('b', 256)),
            json!(repeat('b', 257)),
        ],
        "locale" => vec![
            json!("es"),
            json!("es-ES"),
            json!("es_ES"),
            json!("e"),
            json!("spa-BR"),
            json!("ES"),
            json!("es-E"),
        ],
        "language" => vec![
            json!("en"),
            json!("pt_BR"),
            json!("pt-BR"),
            json!("engl"),
            json!("en_"),
            json!("en_US"),
        ],
        "name" => vec![
            json!("a"),
            json!("A"),
            json!("order ready"),
            json!(repeat('a', 512)),
            json!(repeat('a', 513)),
            json!(repeat('a', 100)),
            json!(repeat('a', 101)),
        ],
        "handler" => vec![
            json!("a"),
            json!("a.b"),
            json!("1a"),
            json!(repeat('h', 128)),
            json!(repeat('h', 129)),
            json!("a-b"),
        ],
        "flow" => vec![
            json!("a"),
            json!("A"),
            json!("a-b"),
            json!(repeat('f', 64)),
            json!(repeat('f', 65)),
        ],
        "var" | "save" => vec![
            json!("_"),
            json!("contact_name"),
            json!("A"),
            json!("a-b"),
            json!(repeat('v', 64)),
            json!(repeat('v', 65)),
            json!("9"),
        ],
        "next" | "onFail" => vec![
            json!("s0"),
            json!("9x"),
            json!(""),
            json!("missing"),
            json!(null),
        ],
        "default" => vec![json!("s0"), json!(""), json!(1), json!(true), json!("x y")],
        "tags" => vec![
            json!([]),
            json!(["a", "a"]),
            strings(20),
            strings(21),
            json!([""]),
        ],
        "keywords" => vec![json!([]), json!(["a", "a"]), strings(50), strings(51)],
        "variables" => vec![
            variables(100),
            variables(101),
            json!({ "A": declaration }),
            json!({ "x": { "type": "string", "default": 1 } }),
            json!({ "x": { "type": "number", "default": "1" } }),
        ],
        "input" => vec![json!("text"), json!("number"), json!("TEXT")],
        "media" => vec![
            json!("audio"),
            json!("sticker"),
            json!("document"),
            json!("image"),
            json!("gif"),
        ],
        "op" => [
            "eq",
            "ne",
            "lt",
            "lte",
            "gt",
            "gte",
            "contains",
            "startsWith",
            "matches",
            "exists",
            "in",
            "EQ",
        ]
        .iter()
        .map(|o| json!(o))
        .collect(),
        "type" => vec![
            json!("string"),
            json!("number"),
            json!("boolean"),
            json!("int"),
        ],
        "match" => vec![json!("exact"), json!("startswith")],
        "kind" => StepKind::NAMES
            .iter()
            .map(|k| json!(k))
            .chain([json!("mesage")])
            .collect(),
        "parameters" => vec![json!([]), strings(20), strings(21), json!([""])],
        "buttons" => vec![
            json!([]),
            copies(json!({ "id": "x", "title": "t" }), 3),
            copies(json!({ "id": "x", "title": "t" }), 4),
        ],
        "cases" => vec![
            copies(json!({ "when": exists, "next": "s0" }), 20),
            copies(json!({ "when": exists, "next": "s0" }), 21),
        ],
        "sections" => vec![
            copies(json!({ "rows": [{ "id": "r", "title": "t" }] }), 10),
            copies(json!({ "rows": [{ "id": "r", "title": "t" }] }), 11),
        ],
        "rows" => vec![
            copies(json!({ "id": "r", "title": "t" }), 10),
            copies(json!({ "id": "r", "title": "t" }), 11),
        ],
        "all" | "any" => vec![json!([]), copies(exists.clone(), 10), copies(exists, 11)],
        "$schema" => vec![json!(""), json!("x"), json!(1)],
        "typing" | "fallback" => vec![json!(true), json!("true")],
        "pattern" => vec![json!(""), json!("(?=a)"), json!("a{2}")],
        "queue" => lengths(&[64, 65]),
        "caption" | "retryText" | "text" => lengths(&[1024, 1025, 4096, 4097]),
        "filename" => lengths(&[240, 241]),
        "header" | "footer" => lengths(&[60, 61]),
        "button" => lengths(&[20, 21]),
        "title" => lengths(&[20, 21, 24, 25, 120, 121]),
        "description" => lengths(&[72, 73, 200, 201, 1000, 1001]),
        "address" => lengths(&[300, 301]),
        "when" => vec![
            json!({}),
            json!({ "all": [], "any": [] }),
            json!({ "not": { "var": "x", "op": "exists" }, "var": "x" }),
        ],
        _ => Vec::new(),
    }
}

/// Applies one random mutation somewhere in the document.
fn mutate(rng: &mut Rng, document: &mut Value) {
    let mut all = Vec::new();
    pointers(document, &mut String::new(), &mut all);
    // Half of the mutations put a value at or around a limit of a property.
    let with_edges: Vec<&String> = all
        .iter()
        .filter(|p| EDGE_KEYS.contains(&p.rsplit('/').next().unwrap_or_default()))
        .collect();
    if !with_edges.is_empty() && rng.chance(50) {
        let at = rng.pick(&with_edges).to_string();
        let edges = edge_values(at.rsplit('/').next().unwrap_or_default());
        let value = rng.pick(&edges).clone();
        if let Some(target) = document.pointer_mut(&at) {
            *target = value;
        }
        return;
    }
    let at = rng.pick(&all).clone();
    let Some(target) = document.pointer_mut(&at) else {
        return;
    };
    match rng.below(10) {
        // Missing key.
        0 => {
            if let Value::Object(map) = target {
                let keys: Vec<String> = map.keys().cloned().collect();
                if !keys.is_empty() {
                    let key = rng.pick(&keys).clone();
                    map.remove(&key);
                }
            }
        }
        // Unknown key (or another kind's key).
        1 => {
            if let Value::Object(map) = target {
                let key = *rng.pick(&UNKNOWN_KEYS);
                map.insert(key.to_owned(), json!("x"));
            }
        }
        // Wrong type.
        2 => {
            *target = rng
                .pick(&[
                    json!(null),
                    json!(1),
                    json!(1.5),
                    json!("x"),
                    json!(true),
                    json!([]),
                    json!({}),
                    json!(-1),
                    json!(""),
                ])
                .clone();
        }
        // Boundary lengths, with multi-byte characters.
        3 | 4 => {
            if target.is_string() {
                let limits = [
                    0, 1, 20, 21, 24, 25, 40, 41, 60, 61, 64, 65, 72, 73, 100, 101, 120, 121, 200,
                    201, 240, 241, 256, 257, 300, 301, 512, 513, 1000, 1001, 1024, 1025, 2048,
                    2049, 4096, 4097,
                ];
                let len = *rng.pick(&limits);
                *target = Value::String(text_of(rng, len));
            } else if target.is_number() {
                *target = rng
                    .pick(&[
                        json!(0),
                        json!(-1),
                        json!(1),
                        json!(2.0),
                        json!(2e0),
                        json!(2.5),
                        json!(5),
                        json!(6),
                        json!(86400),
                        json!(86401),
                        json!(90),
                        json!(90.5),
                        json!(-180),
                        json!(-180.01),
                        json!(3),
                    ])
                    .clone();
            }
        }
        // Enum and pattern violations.
        5 => {
            if target.is_string() {
                *target = rng
                    .pick(&[
                        json!("IMAGE"),
                        json!("Bad Id"),
                        json!("pizza"),
                        json!("pt_br"),
                        json!("http://x.com"),
                        json!("https://a b"),
                        json!("https://"),
                        json!("9a"),
                        json!("_x"),
                        json!("A"),
                        json!("text"),
                        json!("exists"),
                        json!("eq"),
                        json!("audio"),
                        json!("document"),
                        json!("number"),
                        json!("es-ES"),
                        json!("es_ES"),
                    ])
                    .clone();
            }
        }
        // Array sizes and duplicates.
        6 => {
            if let Value::Array(items) = target {
                match rng.below(3) {
                    0 => items.clear(),
                    1 => {
                        if let Some(first) = items.first().cloned() {
                            items.push(first);
                        }
                    }
                    _ => {
                        if let Some(first) = items.first().cloned() {
                            let extra = *rng.pick(&[3, 10, 20, 50]);
                            items.extend(std::iter::repeat_n(first, extra));
                        }
                    }
                }
            }
        }
        // Fields that depend on another field's value.
        7 => {
            if let Value::Object(map) = target {
                let (key, value) = *rng.pick(&[
                    ("caption", "hello"),
                    ("filename", "a.pdf"),
                    ("pattern", "^a$"),
                    ("input", "number"),
                    ("media", "audio"),
                    ("media", "document"),
                    ("op", "exists"),
                    ("op", "in"),
                    ("op", "lt"),
                    ("type", "number"),
                    ("kind", "end"),
                    ("kind", "set"),
                ]);
                map.insert(key.to_owned(), json!(value));
            }
        }
        // Version changes.
        8 => {
            if let Some(root) = document.as_object_mut() {
                let version = rng
                    .pick(&[json!(1), json!(2.0), json!(3), json!("2"), json!(0)])
                    .clone();
                root.insert("version".into(), version);
            }
        }
        // Composite conditions with extra keys, values added or removed.
        _ => {
            if let Value::Object(map) = target {
                if map.contains_key("op") || map.contains_key("all") || map.contains_key("not") {
                    if map.contains_key("value") {
                        map.remove("value");
                    } else {
                        map.insert("value".into(), json!([1, [2]]));
                    }
                } else if rng.chance(50) {
                    map.insert("all".into(), json!([{ "var": "x", "op": "exists" }]));
                }
            }
        }
    }
}

/// Rules the schema need not express (spec §3).
fn exempt(message: &str) -> bool {
    [
        "duplicate step id",
        "duplicate button id",
        "duplicate row id",
        "unknown step \"",
        "cannot write the built-in",
        "must be a regular expression in RE2",
        "a list has at most",
        "conditions nest",
        "args nest",
    ]
    .iter()
    .any(|prefix| message.starts_with(prefix))
}

/// How many generated documents the agreement test checks.
const DOCUMENTS: usize = 6000;

#[test]
fn schema_and_validate_agree_on_generated_documents() {
    let schema = json_schema();
    let checker = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let mut rng = Rng(0x5EED_F10E);
    let mut checked = 0_usize;
    let mut valid = 0_usize;
    let mut disagreements = 0_usize;
    let mut failures = Vec::new();
    for round in 0..DOCUMENTS {
        let mut document = document(&mut rng);
        let mutations = if round % 4 == 0 { 0 } else { 1 + rng.below(2) };
        for _ in 0..mutations {
            mutate(&mut rng, &mut document);
        }
        let by_schema = checker.is_valid(&document);
        let validation = validate(&document);
        let shape_issues: Vec<_> = validation
            .issues
            .iter()
            .filter(|i| !exempt(&i.message))
            .collect();
        checked += 1;
        valid += usize::from(by_schema);
        // Every valid document deserializes into the model, and serializes back unchanged
        // except for integer spellings (`2.0` becomes `2`).
        if validation.valid {
            let model: crate::FlowDocument = serde_json::from_value(document.clone())
                .unwrap_or_else(|e| panic!("{e}: {document}"));
            let back = serde_json::to_value(&model).unwrap();
            assert_eq!(validate(&back).issues, [], "{back}");
        }
        if by_schema != shape_issues.is_empty() {
            disagreements += 1;
        }
        if by_schema != shape_issues.is_empty() && failures.len() < 3 {
            failures.push(format!(
                "schema valid: {by_schema}\nissues: {shape_issues:#?}\ndocument: {document}\n"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{disagreements} disagreements, for example:\n{}",
        failures.join("\n")
    );
    assert_eq!(checked, DOCUMENTS);
    // Both sides are exercised: a fair share of valid and of invalid documents.
    assert!(
        valid > DOCUMENTS / 4 && valid < DOCUMENTS * 3 / 4,
        "valid: {valid}"
    );
}

/// Spec §3: value strings have at least 1 character; the schema and `validate` both reject an
/// empty one in each place and both accept a one-character one (`null` where it is a value).
#[test]
fn schema_and_validate_agree_on_empty_value_strings() {
    let checker = jsonschema::draft202012::new(&json_schema()).expect("the schema compiles");
    let place = |value: Value| -> Vec<(&str, Value)> {
        let when = |op: &str, value: &Value| {
            json!({ "version": 2, "id": "a", "steps": [
                { "id": "b", "kind": "branch", "cases": [{ "when": { "var": "x", "op": op, "value": value }, "next": "e" }] },
                { "id": "e", "kind": "end" },
            ] })
        };
        vec![
            (
                "/steps/0/value",
                json!({ "version": 2, "id": "a", "steps": [{ "id": "s", "kind": "set", "var": "x", "value": value }] }),
            ),
            (
                "/variables/x/default",
                json!({ "version": 2, "id": "a", "variables": { "x": { "type": "string", "default": value } }, "steps": [{ "id": "e", "kind": "end" }] }),
            ),
            ("/steps/0/cases/0/when/value", when("eq", &value)),
            ("/steps/0/cases/0/when/value", when("ne", &value)),
            ("/steps/0/cases/0/when/value", when("contains", &value)),
            ("/steps/0/cases/0/when/value", when("startsWith", &value)),
            (
                "/steps/0/cases/0/when/value/1",
                when("in", &json!([1, value])),
            ),
        ]
    };
    for (path, document) in place(json!("")) {
        assert!(!checker.is_valid(&document), "schema accepts {document}");
        let issues = validate(&document).issues;
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].path, path);
        assert_eq!(
            issues[0].message,
            "must be a non-empty string, found an empty string"
        );
    }
    for (_, document) in place(json!("é")) {
        assert!(checker.is_valid(&document), "schema rejects {document}");
        assert_eq!(validate(&document).issues, [], "{document}");
    }
}

#[test]
fn the_embedded_schema_is_the_generated_one() {
    assert!(
        crate::FLOW_SCHEMA_JSON == json_schema_string(),
        "crates/flow-schema/flow.schema.json is stale: run `cargo xtask schema`"
    );
}

#[test]
fn step_kinds_come_from_the_schema() {
    assert_eq!(step_kinds(&json_schema()), StepKind::NAMES);
}

/// The validator's tables (`StepKind`, from the declaration in `model.rs`) and the JSON Schema
/// (from the same declaration, through `serde` and `schemars`) agree kind by kind and property
/// by property: the properties, which are required, and that nothing else is allowed.
#[test]
fn the_step_tables_and_the_schema_agree_kind_by_kind_and_field_by_field() {
    let schema = json_schema();
    let variants = schema["$defs"]["Step"]["oneOf"].as_array().unwrap();
    assert_eq!(variants.len(), StepKind::ALL.len());
    for (variant, &kind) in variants.iter().zip(StepKind::ALL) {
        assert_eq!(StepKind::parse(kind.as_str()), Some(kind));
        assert_eq!(variant["properties"]["kind"]["const"], kind.as_str());
        let mut properties: Vec<&str> = variant["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut fields = kind.fields().to_vec();
        properties.sort_unstable();
        fields.sort_unstable();
        assert_eq!(properties, fields, "{kind:?}: properties");
        let mut required: Vec<&str> = variant["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let mut table = kind.required().to_vec();
        required.sort_unstable();
        table.sort_unstable();
        assert_eq!(required, table, "{kind:?}: required properties");
        assert_eq!(variant["additionalProperties"], false, "{kind:?}");
        // The table's order is the declaration's, `kind` after `id`, required ones in it.
        assert_eq!(kind.fields()[..2], ["id", "kind"], "{kind:?}");
        let mut rest = kind.fields().iter();
        for name in kind.required() {
            assert!(rest.any(|f| f == name), "{kind:?}: {name} out of order");
        }
    }
    assert_eq!(StepKind::parse("mesage"), None);
    assert_eq!(StepKind::parse("Message"), None);
}

/// The descriptions in `model.rs` (doc comments, which become the schema's `description`s and
/// cannot name a constant) state the limits the validator applies.
#[test]
fn the_schema_descriptions_state_the_limits() {
    use crate::limits as l;
    fn descriptions(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(d)) = map.get("description") {
                    out.push_str(d);
                    out.push('\n');
                }
                map.values().for_each(|v| descriptions(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| descriptions(v, out)),
            _ => {}
        }
    }
    let mut text = String::new();
    descriptions(&json_schema(), &mut text);
    let phrases = [
        format!("always the integer {}", l::CURRENT_VERSION),
        format!("then up to {} lowercase letters", l::MAX_FLOW_ID - 1),
        format!("one of 1 to {} values", l::MAX_IN_VALUES),
        format!(
            "conditions (at most {} levels deep)",
            l::MAX_CONDITION_DEPTH
        ),
        format!("at most {} rows in all", l::MAX_LIST_ROWS),
        format!("-{} to {}.", l::MAX_LATITUDE, l::MAX_LATITUDE),
        format!("-{} to {}.", l::MAX_LONGITUDE, l::MAX_LONGITUDE),
        format!("0 to {} (default {})", l::MAX_RETRIES, l::DEFAULT_RETRIES),
        format!(
            "{} to {} seconds",
            l::MIN_DELAY_SECONDS,
            l::MAX_DELAY_SECONDS
        ),
        format!("any JSON, at most {} levels deep", l::MAX_ARGS_DEPTH),
    ];
    for phrase in phrases {
        assert!(
            text.contains(&phrase),
            "no schema description says \"{phrase}\": update the doc comment in model.rs"
        );
    }
}

/// The validator reports a missing required property and an unknown one on every kind, as the
/// tables say, and a property of another kind as not allowed.
#[test]
fn the_validator_follows_the_step_tables() {
    for &kind in StepKind::ALL {
        let step = json!({ "id": "a", "kind": kind.as_str(), "zzz": 1 });
        let document = json!({ "version": 2, "id": "f", "steps": [step] });
        let issues = validate(&document).issues;
        let missing: Vec<String> = kind.required()[2..]
            .iter()
            .map(|name| format!("missing required property \"{name}\""))
            .collect();
        let reported: Vec<String> = issues
            .iter()
            .filter(|i| i.path == "/steps/0")
            .map(|i| i.message.clone())
            .collect();
        assert_eq!(reported, missing, "{kind:?}");
        assert!(
            issues
                .iter()
                .any(|i| i.path == "/steps/0/zzz" && i.message.starts_with("unknown property")),
            "{kind:?}: {issues:?}"
        );
        let foreign = StepKind::ALL
            .iter()
            .flat_map(|k| k.fields())
            .find(|f| !kind.fields().contains(f))
            .unwrap();
        let step = json!({ "id": "a", "kind": kind.as_str(), foreign.to_string(): 1 });
        let document = json!({ "version": 2, "id": "f", "steps": [step] });
        let issues = validate(&document).issues;
        let pointer = format!("/steps/0/{foreign}");
        assert!(
            issues
                .iter()
                .any(|i| i.path == pointer && i.message.contains("is not allowed on")),
            "{kind:?}: {issues:?}"
        );
    }
}

#[test]
fn schema_is_draft_2020_12_with_sorted_keys_and_a_trailing_newline() {
    let text = json_schema_string();
    assert!(text.ends_with("}\n"));
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(
        schema["$comment"]
            .as_str()
            .unwrap()
            .contains("cargo xtask schema")
    );
    assert!(text.contains("\n  \"$defs\": {\n"));
    // Keys appear in sorted order at every level.
    fn check(value: &Value) {
        if let Value::Object(map) = value {
            let keys: Vec<&String> = map.keys().collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted);
            map.values().for_each(check);
        } else if let Value::Array(items) = value {
            items.iter().for_each(check);
        }
    }
    check(&schema);
}

#[test]
fn limits_are_named() {
    let limits = limits_json();
    assert_eq!(limits["maxSteps"], 500);
    assert_eq!(limits["maxText"], 4096);
    assert_eq!(
        limits["builtInVariables"],
        json!(["contact_name", "contact_phone", "last_message", "flow_id"])
    );
}

/// The properties of each step kind, read from the schema.
fn kind_properties() -> Vec<(String, Vec<String>)> {
    let schema = json_schema();
    schema["$defs"]["Step"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|variant| {
            let kind = variant["properties"]["kind"]["const"].as_str().unwrap();
            let properties = variant["properties"].as_object().unwrap().keys();
            (kind.to_owned(), properties.cloned().collect())
        })
        .collect()
}

/// Values for one property: its edge values, or others from the vocabulary.
fn values_for(key: &str) -> Vec<Value> {
    let mut pool = edge_values(key);
    pool.extend([
        json!("x"),
        json!(""),
        json!("Hi {{name}}"),
        json!("s0"),
        json!(1),
        json!(null),
        json!("a".repeat(1024)),
        json!("é".repeat(1025)),
    ]);
    pool
}

/// Random steps: a shape-valid step of some kind with 0-2 properties replaced or added, the
/// property chosen mostly among the kind's own (read from the schema) and sometimes among every
/// name of the vocabulary. The schema and `validate` must still agree on each document.
fn vocabulary_step() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let every_key: Vec<String> = EDGE_KEYS
        .iter()
        .copied()
        .chain([
            "caption", "filename", "header", "footer", "button", "title", "foo",
        ])
        .filter(|k| !matches!(*k, "id" | "version" | "variables"))
        .map(str::to_owned)
        .collect();
    prop::sample::select(kind_properties()).prop_flat_map(move |(kind, own)| {
        let key = prop_oneof![
            3 => prop::sample::select(own),
            1 => prop::sample::select(every_key.clone()),
        ];
        let key_and_value = key.prop_flat_map(|key| {
            let pool = values_for(&key);
            (Just(key), prop::sample::select(pool))
        });
        (
            Just(kind),
            any::<u64>(),
            prop::collection::vec(key_and_value, 0..3),
        )
            .prop_map(|(kind, seed, overrides)| {
                let mut step = step(&mut Rng(seed), &kind, 0, 1);
                for (key, value) in overrides {
                    step[key.as_str()] = value;
                }
                step
            })
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 1500,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5C4E_3A00),
        ..proptest::prelude::ProptestConfig::default()
    })]

    #[test]
    fn schema_and_validate_agree_on_steps_from_the_vocabulary(step in vocabulary_step()) {
        thread_local! {
            static CHECKER: jsonschema::Validator =
                jsonschema::draft202012::new(&json_schema()).expect("the schema compiles");
        }
        let document = json!({ "version": 2, "id": "p", "steps": [step] });
        let by_schema = CHECKER.with(|c| c.is_valid(&document));
        let issues: Vec<_> = validate(&document)
            .issues
            .into_iter()
            .filter(|i| !exempt(&i.message))
            .collect();
        proptest::prop_assert_eq!(by_schema, issues.is_empty(), "{:#?}\n{}", issues, document);
    }
}

#[test]
fn the_schema_accepts_the_example_and_rejects_a_legacy_document() {
    let checker = jsonschema::draft202012::new(&json_schema()).unwrap();
    let example: Value = serde_json::from_str(crate::EXAMPLE_FLOW_DOCUMENT).unwrap();
    assert!(checker.is_valid(&example));
    let legacy =
        json!({ "version": 1, "id": "old", "steps": [{ "id": "a", "kind": "delay", "ms": 5 }] });
    assert!(!checker.is_valid(&legacy));
}
