//! `botmesh-mcp render FILE [--subflows DIR|FILE]... [--direction TD|LR|BT|RL] [--theme
//! light|dark] [--page N | --focus STEP [--depth D]] [--max-size PX] -o OUT.png|OUT.svg`:
//! draws a flow with the same engine as the `flow_render` tool: the whole picture in one file
//! (text never below 10 px), or one page or one step's neighbourhood as the tool draws them.
//! The output format follows the extension of `-o`.
//!
//! Exit codes, as `check`: 0 when the picture was written, 1 when the document or a subflow is
//! invalid (its issues go to stdout, one a line, and nothing is written), 2 on a usage error, a
//! file that cannot be read or is not JSON, a set too large to draw (more than
//! `MAX_LAYOUT_ITEMS` layout items), or an output that cannot be written.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use botmesh_flow_analyzer::{self as analyzer, Direction, Value};
use botmesh_flow_render::{self as render, Options, Theme};

use crate::check::{complain_as, emit, load, same_file, subflow_files};

const USAGE: &str = "usage: botmesh-mcp render FILE [--subflows DIR|FILE]... [--direction TD|LR|BT|RL] [--theme light|dark] [--page N | --focus STEP [--depth D]] [--max-size PX] -o OUT.png|OUT.svg

Draws a flow document and the subflows it calls (the flow_render engine).
  --subflows DIR|FILE   subflow documents the file calls (repeatable; a directory
                        contributes its *.json files)
  --direction DIR       TD (or TB, default), LR, BT or RL
  --theme THEME         light (default) or dark
  --page N              only page N (from 1) of the pages flow_render cuts a
                        picture larger than --max-size into
  --focus STEP          only the steps around STEP (--depth edges away, default 2)
  --max-size PX         the pages' size, 400 to 8000 (default 1568)
  -o, --output FILE     where to write the picture; .png or .svg
Exit status: 0 written, 1 invalid document, 2 usage error, unreadable/unwritable file
or a picture too large to draw.";

/// The usage text, which the top-level `--help` quotes.
pub(crate) fn usage() -> &'static str {
    USAGE
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Png,
    Svg,
}

/// What part of the picture is written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// The whole picture, in one file.
    Whole,
    /// One page, from 1.
    Page(usize),
    /// The steps around a step, at most this many edges away.
    Focus(String, usize),
}

#[derive(Debug, PartialEq, Eq)]
struct Args {
    file: PathBuf,
    subflows: Vec<PathBuf>,
    options: Options,
    output: PathBuf,
    format: Format,
    part: Part,
    max_size: u32,
}

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Render(Args),
    Help,
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut subflows = Vec::new();
    let mut options = Options::default();
    let mut output = None;
    let mut file = None;
    let mut page = None;
    let mut focus = None;
    let mut depth = 2usize;
    let mut max_size = render::DEFAULT_MAX_SIZE;
    let text = |value: OsString, what: &str| {
        value
            .into_string()
            .map_err(|value| format!("unknown {what} {value:?}"))
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("subflows") => {
                subflows.push(PathBuf::from(parser.value().map_err(|e| e.to_string())?))
            }
            Long("direction") => {
                let value = text(parser.value().map_err(|e| e.to_string())?, "direction")?;
                options.direction = if value == "TB" {
                    Direction::TD
                } else {
                    value.parse().map_err(|e: analyzer::Error| e.to_string())?
                };
            }
            Long("theme") => {
                let value = text(parser.value().map_err(|e| e.to_string())?, "theme")?;
                options.theme = Theme::parse(&value)
                    .ok_or_else(|| format!("unknown theme {value:?} (expected light or dark)"))?;
            }
            Long("page") => {
                let value = text(parser.value().map_err(|e| e.to_string())?, "page")?;
                page = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| {
                            format!("--page takes a page number from 1, not {value:?}")
                        })?,
                );
            }
            Long("focus") => {
                focus = Some(text(parser.value().map_err(|e| e.to_string())?, "step")?)
            }
            Long("depth") => {
                let value = text(parser.value().map_err(|e| e.to_string())?, "depth")?;
                depth = value
                    .parse::<usize>()
                    .ok()
                    .filter(|&d| d <= 10)
                    .ok_or_else(|| format!("--depth takes 0 to 10, not {value:?}"))?;
            }
            Long("max-size") => {
                let value = text(parser.value().map_err(|e| e.to_string())?, "size")?;
                max_size = value
                    .parse::<u32>()
                    .ok()
                    .filter(|m| (render::MIN_MAX_SIZE..=render::MAX_MAX_SIZE).contains(m))
                    .ok_or_else(|| {
                        format!(
                            "--max-size takes {} to {} pixels, not {value:?}",
                            render::MIN_MAX_SIZE,
                            render::MAX_MAX_SIZE
                        )
                    })?;
            }
            Short('o') | Long("output") => {
                output = Some(PathBuf::from(parser.value().map_err(|e| e.to_string())?))
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(value) if file.is_none() => file = Some(PathBuf::from(value)),
            Value(value) => return Err(format!("unexpected argument {value:?} (one FILE only)")),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let file = file.ok_or("no FILE to render")?;
    let output = output.ok_or("no output file (-o OUT.png or -o OUT.svg)")?;
    let format = match output.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") => Format::Png,
        Some(e) if e.eq_ignore_ascii_case("svg") => Format::Svg,
        _ => {
            return Err(format!(
                "cannot tell the format of {}: name it .png or .svg",
                output.display()
            ));
        }
    };
    let part = match (page, focus) {
        (Some(_), Some(_)) => return Err("--page and --focus exclude each other".to_owned()),
        (Some(page), None) => Part::Page(page),
        (None, Some(step)) => Part::Focus(step, depth),
        (None, None) => Part::Whole,
    };
    Ok(Command::Render(Args {
        file,
        subflows,
        options,
        output,
        format,
        part,
        max_size,
    }))
}

/// What a run ends with.
enum Outcome {
    Written(String),
    Invalid(String),
}

fn execute(args: &Args) -> Result<Outcome, String> {
    let subflow_paths = subflow_files(&args.subflows)?;
    let document = load(&args.file)?;
    let subflows: Vec<_> = subflow_paths
        .iter()
        .filter(|p| !same_file(p, &args.file))
        .map(|p| load(p))
        .collect::<Result<_, _>>()?;
    let values: Vec<Value> = subflows.iter().map(|s| s.document.clone()).collect();
    // A valid set too large to draw is bad input, as an unreadable file is: one sentence on
    // stderr (what, the number, the limit, what to do), exit 2.
    let rendering = render::render_set(&document.document, &values, &args.options)
        .map_err(|e| format!("{}: {e}", document.name))?;
    let Some(picture) = rendering.picture else {
        let mut report = String::new();
        for issue in &rendering.issues {
            let name = match issue.source.strip_prefix("subflows/") {
                Some(index) => index
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| subflows.get(i))
                    .map_or(issue.source.as_str(), |s| s.name.as_str()),
                None => document.name.as_str(),
            };
            report.push_str(&format!(
                "{name}: error {}: {}\n",
                issue.path, issue.message
            ));
        }
        return Ok(Outcome::Invalid(report));
    };
    let framed = match &args.part {
        Part::Whole => None,
        Part::Page(number) => {
            let paging = picture.paging(args.max_size);
            let framed = match picture.fit_within(args.max_size) {
                // A picture that fits is its own page 1.
                Some(scale) if *number == 1 => picture.whole(scale),
                Some(_) => None.ok_or(format!(
                    "--page {number}: the picture fits in one image, so it has only page 1"
                ))?,
                None => picture.page(&paging, *number).ok_or(format!(
                    "--page {number}: the picture has {} pages",
                    paging.pages.len()
                ))?,
            };
            Some(framed)
        }
        Part::Focus(step, depth) => {
            let node = picture
                .nodes
                .iter()
                .position(|n| n.id == *step)
                .ok_or(format!("--focus: there is no step {step:?} in the set"))?;
            Some(picture.focus(node, *depth, args.max_size))
        }
    };
    let (bytes, size) = match (args.format, &framed) {
        (Format::Svg, None) => (
            picture.to_svg().map_err(|e| e.to_string())?.into_bytes(),
            (picture.width, picture.height),
        ),
        (Format::Png, None) => {
            let scale = picture.default_png_scale();
            let (w, h) = picture.png_size(scale);
            (
                picture.to_png(scale).map_err(|e| e.to_string())?,
                (i64::from(w), i64::from(h)),
            )
        }
        (Format::Svg, Some(framed)) => (
            picture
                .framed_svg(framed)
                .map_err(|e| e.to_string())?
                .into_bytes(),
            (framed.region.width, framed.region.height),
        ),
        (Format::Png, Some(framed)) => (
            picture.framed_png(framed).map_err(|e| e.to_string())?,
            (i64::from(framed.size.0), i64::from(framed.size.1)),
        ),
    };
    std::fs::write(&args.output, bytes)
        .map_err(|e| format!("cannot write {}: {}", args.output.display(), e.kind()))?;
    let missing = picture
        .missing_glyphs_note()
        .map_or_else(String::new, |note| format!("; {note}"));
    Ok(Outcome::Written(format!(
        "{}: {}x{} px, {} nodes, {} edges, {} crossings{missing}\n",
        args.output.display(),
        size.0,
        size.1,
        picture.nodes.len(),
        picture.edges.len(),
        picture.crossings
    )))
}

fn complain(message: &str, usage: bool) {
    complain_as("render", message, usage.then_some(USAGE));
}

/// Runs `botmesh-mcp render` with the arguments that follow `render`.
pub(crate) fn run(args: Vec<OsString>) -> ExitCode {
    let args = match parse_args(args) {
        Ok(Command::Render(args)) => args,
        Ok(Command::Help) => {
            emit(&format!("{USAGE}\n"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            complain(&message, true);
            return ExitCode::from(2);
        }
    };
    match execute(&args) {
        Ok(Outcome::Written(line)) => {
            emit(&line);
            ExitCode::SUCCESS
        }
        Ok(Outcome::Invalid(report)) => {
            emit(&report);
            ExitCode::from(1)
        }
        Err(message) => {
            complain(&message, false);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_options_and_the_format_from_the_output_name() {
        let parsed = parse_args(os(&[
            "flow.json",
            "--subflows",
            "subs",
            "--direction=LR",
            "--theme",
            "dark",
            "-o",
            "out.SVG",
        ]));
        assert_eq!(
            parsed,
            Ok(Command::Render(Args {
                file: PathBuf::from("flow.json"),
                subflows: vec![PathBuf::from("subs")],
                options: Options {
                    direction: Direction::LR,
                    theme: Theme::Dark
                },
                output: PathBuf::from("out.SVG"),
                format: Format::Svg,
                part: Part::Whole,
                max_size: render::DEFAULT_MAX_SIZE,
            }))
        );
        assert_eq!(parse_args(os(&["-h"])), Ok(Command::Help));
        let Ok(Command::Render(args)) = parse_args(os(&[
            "f.json",
            "--focus",
            "ask",
            "--depth",
            "1",
            "--max-size",
            "800",
            "-o",
            "a.png",
        ])) else {
            panic!("parsed")
        };
        assert_eq!(
            (args.part, args.max_size),
            (Part::Focus("ask".to_owned(), 1), 800)
        );
        let Ok(Command::Render(args)) = parse_args(os(&["f.json", "--page", "3", "-o", "a.png"]))
        else {
            panic!("parsed")
        };
        assert_eq!(args.part, Part::Page(3));
        for (bad, message) in [
            (
                &["--page", "0"][..],
                "--page takes a page number from 1, not \"0\"",
            ),
            (&["--depth", "11"][..], "--depth takes 0 to 10, not \"11\""),
            (
                &["--max-size", "100"][..],
                "--max-size takes 400 to 8000 pixels, not \"100\"",
            ),
            (
                &["--page", "1", "--focus", "a"][..],
                "--page and --focus exclude each other",
            ),
        ] {
            let mut args = vec!["f.json", "-o", "a.png"];
            args.extend_from_slice(bad);
            assert_eq!(parse_args(os(&args)), Err(message.to_owned()));
        }
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        assert_eq!(
            parse_args(os(&["-o", "a.png"])),
            Err("no FILE to render".to_owned())
        );
        assert_eq!(
            parse_args(os(&["a.json"])),
            Err("no output file (-o OUT.png or -o OUT.svg)".to_owned())
        );
        assert_eq!(
            parse_args(os(&["a.json", "-o", "a.gif"])),
            Err("cannot tell the format of a.gif: name it .png or .svg".to_owned())
        );
        assert_eq!(
            parse_args(os(&["a.json", "--theme", "pink", "-o", "a.png"])),
            Err("unknown theme \"pink\" (expected light or dark)".to_owned())
        );
        assert_eq!(
            parse_args(os(&["a.json", "b.json", "-o", "a.png"])),
            Err("unexpected argument \"b.json\" (one FILE only)".to_owned())
        );
    }
}
