//! `cargo xtask schema [--check]`: writes (or checks) `docs/schema/flowtest.schema.json` (the
//! conversation test files' schema, from `botmesh-flow-runtime`'s model, and the same bytes in
//! `crates/flow-runtime/flowtest.schema.json`, embedded as `FLOWTEST_SCHEMA_JSON`) and
//! `docs/schema/flow.schema.json`, the JSON
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

/// The schema of conversation test files (`*.flowtest.json`), generated from the runtime's
/// model: the one editors fetch, and the copy the runtime embeds as `FLOWTEST_SCHEMA_JSON`
/// (served by `flow_schema` with `form: "flowtest"`).
const FLOWTEST_SCHEMA_FILES: [&str; 2] = [
    "docs/schema/flowtest.schema.json",
    "crates/flow-runtime/flowtest.schema.json",
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
    let tests = botmesh_flow_runtime::flowtest_schema_string();
    for file in FLOWTEST_SCHEMA_FILES {
        crate::generated::update(file, &tests, check, "schema")?;
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
fn flowtest_schema_is_fresh() {
    let contents = botmesh_flow_runtime::flowtest_schema_string();
    for file in FLOWTEST_SCHEMA_FILES {
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
