//! `cargo xtask schema [--check]`: writes (or checks) `docs/schema/flow.schema.json`, the JSON
//! Schema generated from the Rust types of `botmesh-flow-schema`, and the same bytes in
//! `crates/flow-schema/flow.schema.json` (embedded in the library as `FLOW_SCHEMA_JSON`, so the
//! server serves the schema without linking the generator).
use std::error::Error;

/// The generated files, relative to the workspace root: the one editors fetch, and the copy the
/// library embeds.
const SCHEMA_FILES: [&str; 2] = [
    "docs/schema/flow.schema.json",
    "crates/flow-schema/flow.schema.json",
];

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let check = match args {
        [] => false,
        ["--check"] => true,
        _ => return Err("usage: cargo xtask schema [--check]".into()),
    };
    let contents = botmesh_flow_schema::json_schema_string();
    for file in SCHEMA_FILES {
        crate::generated::update(file, &contents, check, "schema")?;
    }
    Ok(())
}

#[test]
fn schema_is_fresh() {
    let contents = botmesh_flow_schema::json_schema_string();
    for file in SCHEMA_FILES {
        let path = crate::project_root().join(file);
        if let Err(error) = crate::generated::ensure_fresh(file, &path, &contents, "schema") {
            panic!("{error}");
        }
    }
}

#[test]
fn a_stale_file_is_reported_with_the_command_to_run() {
    for file in SCHEMA_FILES {
        let path = crate::project_root().join(file);
        let error = crate::generated::ensure_fresh(file, &path, "{}\n", "schema")
            .unwrap_err()
            .to_string();
        assert_eq!(error, format!("{file} is stale: run `cargo xtask schema`"));
    }
}
