//! End-to-end tests of `botmesh-mcp render`: the real binary on real files, the picture it
//! writes (PNG or SVG by the output's extension), and its exit codes (0, 1, 2).

use std::process::Output;

use botmesh_flow_render::MAX_LAYOUT_ITEMS;

use crate::hostile_flow::hostile_flow;
use crate::util::Dir;

const SHOP: &str = r#"{"version": 2, "id": "shop", "steps": [
  {"id": "menu", "kind": "buttons", "text": "What now?", "buttons": [
    {"id": "pay", "title": "Pay", "next": "go"},
    {"id": "again", "title": "Show again", "next": "menu"}]},
  {"id": "go", "kind": "subflow", "flow": "pay"},
  {"id": "bye", "kind": "end"}
]}"#;

const PAY: &str = r#"{"version": 2, "id": "pay", "steps": [
  {"id": "amount", "kind": "ask", "text": "How much?", "save": "amount", "input": "number"},
  {"id": "done", "kind": "end", "text": "Paid {{amount}}"}
]}"#;

/// A temporary folder holding the given files and an empty `subflows/`.
fn scratch(test: &str, files: &[(&str, &str)]) -> Dir {
    let dir = Dir::new(&format!("render-{test}"));
    dir.create_dir("subflows");
    for (name, text) in files {
        dir.write(name, text);
    }
    dir
}

/// `botmesh-mcp render ARGS` run inside `dir`.
fn render(dir: &Dir, args: &[&str]) -> Output {
    dir.command()
        .arg("render")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn a_png_with_its_subflows_is_written_and_exits_0() {
    let dir = scratch("png", &[("shop.json", SHOP), ("subflows/pay.json", PAY)]);
    let output = render(
        &dir,
        &["shop.json", "--subflows", "subflows", "-o", "shop.png"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let png = std::fs::read(dir.path().join("shop.png")).expect("written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().expect("4 bytes"));
    let height = u32::from_be_bytes(png[20..24].try_into().expect("4 bytes"));
    // The line names the file and the PNG's own size; 5 nodes: 3 steps and the subflow's 2.
    assert_eq!(
        text(&output.stdout),
        format!("shop.png: {width}x{height} px, 5 nodes, 5 edges, 0 crossings\n")
    );
}

#[test]
fn an_svg_follows_the_direction_and_theme() {
    let dir = scratch("svg", &[("shop.json", SHOP), ("pay.json", PAY)]);
    let output = render(
        &dir,
        &[
            "shop.json",
            "--subflows",
            "pay.json",
            "--direction",
            "LR",
            "--theme",
            "dark",
            "-o",
            "shop.svg",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let svg = std::fs::read_to_string(dir.path().join("shop.svg")).expect("written");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains("fill=\"#1e1e24\""), "the dark background");
    assert!(
        svg.contains(">Show again</text>") && svg.contains(">pay</text>"),
        "{svg}"
    );
    let again = render(
        &dir,
        &[
            "shop.json",
            "--subflows",
            "pay.json",
            "--direction",
            "LR",
            "--theme",
            "dark",
            "-o",
            "again.svg",
        ],
    );
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("again.svg")).expect("written"),
        svg
    );
}

#[test]
fn an_invalid_document_prints_its_issues_writes_nothing_and_exits_1() {
    let dir = scratch(
        "invalid",
        &[("bad.json", r#"{"version": 2, "id": "bad", "steps": []}"#)],
    );
    let output = render(&dir, &["bad.json", "-o", "bad.png"]);
    assert_eq!(output.status.code(), Some(1));
    let out = text(&output.stdout);
    assert!(out.starts_with("bad.json: error /steps: "), "{out}");
    assert!(!dir.path().join("bad.png").exists());
}

#[test]
fn usage_and_unreadable_files_exit_2() {
    let dir = scratch("usage", &[("shop.json", SHOP), ("broken.json", "{")]);
    let output = render(&dir, &["shop.json", "-o", "shop.gif"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("name it .png or .svg"));
    let output = render(&dir, &["missing.json", "-o", "x.png"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("cannot read missing.json"),
        "{}",
        text(&output.stderr)
    );
    let output = render(&dir, &["broken.json", "-o", "x.png"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("broken.json is not JSON"),
        "{}",
        text(&output.stderr)
    );
    let output = render(&dir, &["shop.json", "-o", "no/such/dir/x.png"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("cannot write"),
        "{}",
        text(&output.stderr)
    );
    assert!(output.stdout.is_empty());
}

/// Checks the one sentence that refuses a set of `flows` flows too large to draw: what, the
/// number of items, the limit, what to do.
pub(crate) fn assert_too_large(message: &str, flows: usize) {
    let start = format!("the picture of {flows} flows is too large to draw: it needs ");
    let items = message
        .strip_prefix(&start)
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(number, _)| number.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!(items > MAX_LAYOUT_ITEMS, "{message}");
    assert_eq!(
        message,
        format!(
            "{start}{items} layout items (a box per step and a point for each layer an edge \
             crosses), more than the limit of {MAX_LAYOUT_ITEMS}; render fewer flows at once, or \
             split a long flow into subflows drawn one at a time"
        )
    );
}

#[test]
fn a_set_too_large_to_draw_is_one_sentence_on_stderr_writes_nothing_and_exits_2() {
    let dir = scratch(
        "too-large",
        &[
            ("big.json", &hostile_flow("big", 1).to_string()),
            ("subflows/other.json", &hostile_flow("other", 2).to_string()),
        ],
    );
    let output = render(
        &dir,
        &["big.json", "--subflows", "subflows", "-o", "big.png"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty());
    let stderr = text(&output.stderr);
    let message = stderr
        .strip_prefix("botmesh-mcp render: big.json: ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_too_large(message, 2);
    assert!(!dir.path().join("big.png").exists());
}

#[test]
fn a_page_or_a_focus_of_a_long_flow_is_written_as_flow_render_draws_it() {
    let long = serde_json::to_string(&crate::bench_flow::benchmark_flow(150)).expect("JSON");
    let dir = scratch("parts", &[("long.json", &long)]);
    let output = render(&dir, &["long.json", "--page", "2", "-o", "page.png"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let png = std::fs::read(dir.path().join("page.png")).expect("written");
    let width = u32::from_be_bytes(png[16..20].try_into().expect("4 bytes"));
    let height = u32::from_be_bytes(png[20..24].try_into().expect("4 bytes"));
    assert!(width.max(height) <= 1568, "{width}x{height}");
    assert!(text(&output.stdout).starts_with(&format!("page.png: {width}x{height} px, 150 nodes")));
    // The neighbourhood as SVG: the part is the viewBox of the whole picture's markup.
    let output = render(
        &dir,
        &["long.json", "--focus", "step_13", "-o", "focus.svg"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let svg = std::fs::read_to_string(dir.path().join("focus.svg")).expect("written");
    assert!(!svg.contains("viewBox=\"0 0 "), "{}", &svg[..200]);
    assert!(svg.contains(">step_13</text>"));
    // No such page, no such step: exit 2, one sentence naming the flag, nothing written.
    for (args, start) in [
        (&["--page", "99"][..], "--page 99: the picture has "),
        (
            &["--focus", "nowhere"][..],
            "--focus: there is no step \"nowhere\"",
        ),
    ] {
        let mut all = vec!["long.json", "-o", "none.png"];
        all.extend_from_slice(args);
        let output = render(&dir, &all);
        assert_eq!(output.status.code(), Some(2));
        let stderr = text(&output.stderr);
        assert!(stderr.contains(start), "{stderr}");
        assert!(!dir.path().join("none.png").exists());
    }
}
