//! `cargo xtask schema [--check]`: writes (or checks) `docs/schema/flow.schema.json`, the JSON
//! Schema generated from the Rust types of `botmesh-flow-schema`.
use std::error::Error;
use std::path::{Path, PathBuf};

/// The generated file, relative to the workspace root.
const SCHEMA_FILE: &str = "docs/schema/flow.schema.json";

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let check = match args {
        [] => false,
        ["--check"] => true,
        _ => return Err("usage: cargo xtask schema [--check]".into()),
    };
    let path = schema_path();
    let contents = botmesh_flow_schema::json_schema_string();
    if check {
        ensure_fresh(&path, &contents)?;
        println!("{SCHEMA_FILE} is fresh");
    } else {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if std::fs::read(&path).ok().as_deref() == Some(contents.as_bytes()) {
            println!("{SCHEMA_FILE} is already fresh");
        } else {
            std::fs::write(&path, contents)?;
            println!("wrote {SCHEMA_FILE}");
        }
    }
    Ok(())
}

fn schema_path() -> PathBuf {
    crate::project_root().join(SCHEMA_FILE)
}

/// Fails unless the file holds exactly `contents` (bytes, as editors fetch them); writes nothing.
fn ensure_fresh(path: &Path, contents: &str) -> Result<(), Box<dyn Error>> {
    match std::fs::read(path) {
        Ok(bytes) if bytes == contents.as_bytes() => Ok(()),
        Ok(_) => Err(format!("{SCHEMA_FILE} is stale: run `cargo xtask schema`").into()),
        Err(_) => Err(format!("{SCHEMA_FILE} is missing: run `cargo xtask schema`").into()),
    }
}

#[test]
fn schema_is_fresh() {
    if let Err(error) = ensure_fresh(&schema_path(), &botmesh_flow_schema::json_schema_string()) {
        panic!("{error}");
    }
}

#[test]
fn a_stale_file_is_reported_with_the_command_to_run() {
    let error = ensure_fresh(&schema_path(), "{}\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "docs/schema/flow.schema.json is stale: run `cargo xtask schema`"
    );
}
