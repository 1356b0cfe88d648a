//! `cargo xtask picture [--check]`: writes (or checks) the pictures of the example flow that
//! the README and the rendering guide show, drawn by `botmesh-flow-render` exactly as the
//! `flow_render` tool draws them. The SVG bytes are the same on every platform, so CI checks
//! them like the schema.
use std::error::Error;

use botmesh_flow_render::{Direction, Options, Theme, render_set};

/// The pictures, relative to the workspace root, with how each is drawn.
const PICTURES: [(&str, Direction, Theme); 2] = [
    ("docs/images/example-flow.svg", Direction::TD, Theme::Light),
    (
        "docs/images/example-flow-lr-dark.svg",
        Direction::LR,
        Theme::Dark,
    ),
];

fn draw(direction: Direction, theme: Theme) -> Result<String, Box<dyn Error>> {
    let document: serde_json::Value =
        serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT)?;
    let rendering = render_set(&document, &[], &Options { direction, theme })?;
    let picture = rendering
        .picture
        .ok_or("the example flow did not render (is it still valid?)")?;
    Ok(picture.to_svg()?)
}

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let check = match args {
        [] => false,
        ["--check"] => true,
        _ => return Err("usage: cargo xtask picture [--check]".into()),
    };
    for (file, direction, theme) in PICTURES {
        crate::generated::update(file, &draw(direction, theme)?, check, "picture")?;
    }
    Ok(())
}

#[test]
fn pictures_are_fresh() {
    for (file, direction, theme) in PICTURES {
        let contents = draw(direction, theme).unwrap();
        let path = crate::project_root().join(file);
        if let Err(error) = crate::generated::ensure_fresh(file, &path, &contents, "picture") {
            panic!("{error}");
        }
    }
}

#[test]
fn a_stale_picture_is_reported_with_the_command_to_run() {
    let (file, _, _) = PICTURES[0];
    let path = crate::project_root().join(file);
    let error = crate::generated::ensure_fresh(file, &path, "<svg/>\n", "picture")
        .unwrap_err()
        .to_string();
    assert_eq!(error, format!("{file} is stale: run `cargo xtask picture`"));
}
