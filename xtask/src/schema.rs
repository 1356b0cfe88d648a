//! `cargo xtask schema [--check]`: writes (or checks) `docs/schema/flow.schema.json`, the JSON
//! Schema generated from the Rust types of `botmesh-flow-schema`, and the same bytes in
//! `crates/flow-schema/flow.schema.json` (embedded in the library as `FLOW_SCHEMA_JSON`, so the
//! server serves the schema without linking the generator).
use std::error::Error;
use std::path::Path;

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
        let path = crate::project_root().join(file);
        if check {
            ensure_fresh(file, &path, &contents)?;
            println!("{file} is fresh");
        } else {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            if std::fs::read(&path).ok().as_deref() == Some(contents.as_bytes()) {
                println!("{file} is already fresh");
            } else {
                std::fs::write(&path, &contents)?;
                println!("wrote {file}");
            }
        }
    }
    Ok(())
}

/// Fails unless `path` (shown as `file`) holds exactly `contents` (bytes, as editors fetch
/// them); writes nothing.
fn ensure_fresh(file: &str, path: &Path, contents: &str) -> Result<(), Box<dyn Error>> {
    match std::fs::read(path) {
        Ok(bytes) if bytes == contents.as_bytes() => Ok(()),
        Ok(_) => Err(format!("{file} is stale: run `cargo xtask schema`").into()),
        Err(_) => Err(format!("{file} is missing: run `cargo xtask schema`").into()),
    }
}

#[test]
fn schema_is_fresh() {
    let contents = botmesh_flow_schema::json_schema_string();
    for file in SCHEMA_FILES {
        if let Err(error) = ensure_fresh(file, &crate::project_root().join(file), &contents) {
            panic!("{error}");
        }
    }
}

#[test]
fn a_stale_file_is_reported_with_the_command_to_run() {
    for file in SCHEMA_FILES {
        let error = ensure_fresh(file, &crate::project_root().join(file), "{}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(error, format!("{file} is stale: run `cargo xtask schema`"));
    }
}
