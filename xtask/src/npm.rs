//! `cargo xtask npm [--locked] [--no-build] [--all-platforms] [--binary PLATFORM=PATH]...`:
//! build the release binaries (as `cargo xtask dist` does) and assemble the npm packages in
//! `$CARGO_TARGET_DIR/npm/` (default `target/npm/`).
//!
//! The packages come from `npm/` in the repository: `npm/mcp` is the main package `@botmesh/mcp`
//! (a Node launcher, no dependencies, no install scripts) and `npm/mcp-<platform>` the platform
//! packages listed as its `optionalDependencies`. Assembling copies the main package and every
//! platform package that has a binary: this machine's platform (built here), all six with
//! `--all-platforms` (cross-built here, `tools/cross/install.sh` installs the toolchain), and
//! any given with `--binary linux-arm64=path/to/botmesh-mcp` (built elsewhere, as the release
//! workflow's native runners do). `--no-build` takes the binaries `dist` left in the target
//! folder. A platform package without a binary is never assembled, so a broken package cannot
//! be packed by accident.
//!
//! Versions are in lockstep ([`crate::release::version_problems`], the one rule for crates and
//! packages alike), and the packages have the shape npm needs ([`package_problems`]), or the
//! task fails before building.
//! The tests at the end of this file check the same on every `cargo test`, plus that every
//! client set-up file under `examples/clients/` and `.vscode/` parses and every example flow
//! validates.
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The binary's file name inside a platform package's `bin/`.
fn binary_name(platform: &str) -> &'static str {
    if platform.starts_with("win32-") {
        "botmesh-mcp.exe"
    } else {
        "botmesh-mcp"
    }
}

pub(crate) fn read_json(path: &Path) -> Result<Value, Box<dyn Error>> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", path.display()).into())
}

/// The package folders under `npm/` (`mcp`, `mcp-darwin-arm64`, ...), sorted.
pub(crate) fn package_dirs(npm: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(npm)? {
        let entry = entry?;
        if entry.path().join("package.json").is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// Checks the shape of the packages under `npm/` (their versions are
/// [`crate::release::version_problems`]'s): each is named after its folder, the main package
/// lists exactly the platform packages as `optionalDependencies`, each platform package names
/// its os and cpu and ships its binary, and no package has install scripts or (for the main
/// one) dependencies. Returns every problem.
fn package_problems(npm: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut problems = Vec::new();
    let dirs = package_dirs(npm)?;
    let mut platform_names = Vec::new();
    for dir in &dirs {
        let manifest = read_json(&npm.join(dir).join("package.json"))?;
        let expected_name = format!("@botmesh/{dir}");
        if manifest["name"].as_str() != Some(expected_name.as_str()) {
            problems.push(format!(
                "npm/{dir}/package.json is not named {expected_name}"
            ));
        }
        if let Some(scripts) = manifest["scripts"].as_object() {
            for hook in ["preinstall", "install", "postinstall", "prepare"] {
                if scripts.contains_key(hook) {
                    problems.push(format!(
                        "npm/{dir}/package.json has an install script ({hook})"
                    ));
                }
            }
        }
        if let Some(platform) = dir.strip_prefix("mcp-") {
            platform_names.push(expected_name);
            let (os, cpu) = platform.split_once('-').unwrap_or((platform, ""));
            if manifest["os"] != serde_json::json!([os])
                || manifest["cpu"] != serde_json::json!([cpu])
            {
                problems.push(format!(
                    "npm/{dir}/package.json must have os [\"{os}\"] and cpu [\"{cpu}\"]"
                ));
            }
            if manifest.get("libc").is_some() {
                // The Linux binaries are static: a `libc` field would keep them from Alpine.
                problems.push(format!(
                    "npm/{dir}/package.json restricts libc, but the binary is static"
                ));
            }
            let binary = format!("bin/{}", binary_name(platform));
            let ships = manifest["files"]
                .as_array()
                .is_some_and(|files| files.iter().any(|f| f == binary.as_str()));
            if !ships {
                problems.push(format!(
                    "npm/{dir}/package.json does not list {binary} in files"
                ));
            }
        }
    }
    let main = read_json(&npm.join("mcp").join("package.json"))?;
    for key in ["dependencies", "peerDependencies"] {
        if main.get(key).is_some() {
            problems.push(format!("npm/mcp/package.json must have no {key}"));
        }
    }
    let optional = main["optionalDependencies"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let listed: Vec<&String> = optional.keys().collect();
    let expected: Vec<&String> = platform_names.iter().collect();
    if listed != expected {
        problems.push(format!(
            "npm/mcp optionalDependencies list {listed:?}, the platform packages are {expected:?}"
        ));
    }
    Ok(problems)
}

/// Copies a package folder (files and subfolders) from `from` to `to`.
fn copy_tree(from: &Path, to: &Path) -> Result<(), Box<dyn Error>> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Assembles `out/mcp` and `out/mcp-<platform>` (with its binary) for each given binary.
/// Returns the assembled folder names.
fn assemble(
    npm: &Path,
    out: &Path,
    binaries: &[(String, PathBuf)],
) -> Result<Vec<String>, Box<dyn Error>> {
    if out.exists() {
        fs::remove_dir_all(out)?;
    }
    copy_tree(&npm.join("mcp"), &out.join("mcp"))?;
    let mut assembled = vec!["mcp".to_owned()];
    for (platform, binary) in binaries {
        let dir = format!("mcp-{platform}");
        let source = npm.join(&dir);
        if !source.join("package.json").is_file() {
            return Err(
                format!("there is no npm package for platform {platform} (npm/{dir})").into(),
            );
        }
        copy_tree(&source, &out.join(&dir))?;
        let bin = out.join(&dir).join("bin");
        fs::create_dir_all(&bin)?;
        fs::copy(binary, bin.join(binary_name(platform))).map_err(|e| {
            format!(
                "cannot copy the {platform} binary {}: {e}",
                binary.display()
            )
        })?;
        assembled.push(dir);
    }
    Ok(assembled)
}

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let root = crate::project_root();
    let mut locked = false;
    let mut build = true;
    let mut all = false;
    let mut binaries: Vec<(String, PathBuf)> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--locked" => locked = true,
            "--no-build" => build = false,
            "--all-platforms" => all = true,
            "--binary" => {
                let spec = rest.next().ok_or("--binary needs PLATFORM=PATH")?;
                let (platform, path) = spec.split_once('=').ok_or("--binary needs PLATFORM=PATH")?;
                binaries.push((platform.to_owned(), PathBuf::from(path)));
            }
            other => return Err(format!("unknown npm option {other} (accepted: --locked, --no-build, --all-platforms, --binary PLATFORM=PATH)").into()),
        }
    }

    let version = crate::release::workspace_version(&root)?;
    let npm = root.join("npm");
    let crates = crate::release::workspace_crates(&root)?;
    let mut problems = crate::release::version_problems(&crates, &npm, &version)?;
    problems.extend(package_problems(&npm)?);
    if !problems.is_empty() {
        return Err(format!("npm packages are not in lockstep: {}", problems.join("; ")).into());
    }

    let target = crate::target_dir(&root);
    let wanted: Vec<crate::dist::Platform> = if all {
        crate::dist::PLATFORMS.to_vec()
    } else {
        crate::dist::host_platform()?.into_iter().collect()
    };
    for platform in wanted.iter().rev() {
        if binaries.iter().any(|(npm, _)| npm == platform.npm) {
            continue;
        }
        let binary = if build {
            crate::dist::build(&root, platform.triple, locked)?
        } else {
            crate::dist::path_for(&root, platform.triple)
        };
        binaries.insert(0, (platform.npm.to_owned(), binary));
    }
    if binaries.is_empty() {
        return Err("this machine has no npm platform package; pass --binary PLATFORM=PATH".into());
    }
    binaries.sort();

    let out = target.join("npm");
    let assembled = assemble(&npm, &out, &binaries)?;
    for dir in &assembled {
        println!("assembled {} ({version})", out.join(dir).display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::project_root()
    }

    /// Every `.json` file under `dir`, hidden folders (`.cursor`, `.vscode`) included, sorted.
    fn json_files(dir: &Path) -> Vec<PathBuf> {
        crate::files_with_extension(dir, "json").unwrap()
    }

    #[test]
    fn npm_packages_have_the_shape_npm_needs() {
        let problems = package_problems(&root().join("npm")).unwrap();
        assert_eq!(problems, Vec::<String>::new());
        let dirs = package_dirs(&root().join("npm")).unwrap();
        assert_eq!(
            dirs,
            [
                "mcp",
                "mcp-darwin-arm64",
                "mcp-darwin-x64",
                "mcp-linux-arm64",
                "mcp-linux-x64",
                "mcp-win32-arm64",
                "mcp-win32-x64"
            ]
        );
    }

    #[test]
    fn launcher_knows_every_platform_package() {
        let launcher = fs::read_to_string(root().join("npm/mcp/bin/botmesh-mcp.js")).unwrap();
        for dir in package_dirs(&root().join("npm")).unwrap() {
            if let Some(platform) = dir.strip_prefix("mcp-") {
                assert!(
                    launcher.contains(&format!("'{platform}': '@botmesh/{dir}'")),
                    "launcher lacks {platform}"
                );
            }
        }
        let main = read_json(&root().join("npm/mcp/package.json")).unwrap();
        assert_eq!(main["bin"]["botmesh-mcp"], "bin/botmesh-mcp.js");
    }

    #[test]
    fn binary_names_follow_the_platform() {
        assert_eq!(binary_name("win32-x64"), "botmesh-mcp.exe");
        assert_eq!(binary_name("win32-arm64"), "botmesh-mcp.exe");
        assert_eq!(binary_name("linux-arm64"), "botmesh-mcp");
    }

    #[test]
    fn assembles_main_and_platform_packages_with_the_binary() {
        let scratch = std::env::temp_dir().join(format!("xtask-npm-test-{}", std::process::id()));
        fs::create_dir_all(&scratch).unwrap();
        let fake = scratch.join("fake-binary");
        fs::write(&fake, b"\x7fELF fake").unwrap();
        let out = scratch.join("npm");
        fs::create_dir_all(out.join("stale")).unwrap();
        let assembled = assemble(
            &root().join("npm"),
            &out,
            &[("linux-arm64".to_owned(), fake.clone())],
        )
        .unwrap();
        assert_eq!(assembled, ["mcp", "mcp-linux-arm64"]);
        assert!(
            !out.join("stale").exists(),
            "a previous assembly is removed first"
        );
        assert!(out.join("mcp/bin/botmesh-mcp.js").is_file());
        assert!(out.join("mcp/package.json").is_file());
        assert_eq!(
            fs::read(out.join("mcp-linux-arm64/bin/botmesh-mcp")).unwrap(),
            b"\x7fELF fake"
        );
        assert!(
            !out.join("mcp-linux-x64").exists(),
            "a platform without a binary is not assembled"
        );
        let error =
            assemble(&root().join("npm"), &out, &[("sunos-x64".to_owned(), fake)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "there is no npm package for platform sunos-x64 (npm/mcp-sunos-x64)"
        );
        fs::remove_dir_all(&scratch).unwrap();
    }

    #[test]
    fn every_client_set_up_file_parses_and_registers_botmesh() {
        let mut files = json_files(&root().join("examples/clients"));
        assert!(
            files.len() >= 6,
            "expected the client set-ups, found {files:?}"
        );
        files.extend(json_files(&root().join(".vscode")));
        for file in &files {
            let value = read_json(file).unwrap_or_else(|e| panic!("{e}"));
            let name = file.file_name().unwrap().to_string_lossy();
            if name == "settings.json" {
                continue;
            }
            let servers = value.get("mcpServers").or_else(|| value.get("servers"));
            let server = servers
                .and_then(|s| s.get("botmesh"))
                .unwrap_or_else(|| panic!("{} registers no \"botmesh\" server", file.display()));
            let runs = server.get("command").is_some_and(Value::is_string)
                || server.get("url").is_some_and(Value::is_string);
            assert!(
                runs,
                "{}: the botmesh server has neither command nor url",
                file.display()
            );
        }
    }

    #[test]
    fn vscode_validates_example_flows_against_the_schema() {
        let settings = read_json(&root().join(".vscode/settings.json")).unwrap();
        let mapped = settings["json.schemas"]
            .as_array()
            .unwrap()
            .iter()
            .any(|entry| {
                entry["url"] == "./docs/schema/flow.schema.json"
                    && entry["fileMatch"]
                        .as_array()
                        .is_some_and(|m| m.iter().any(|f| f == "examples/flows/*.json"))
            });
        assert!(
            mapped,
            "json.schemas does not map examples/flows/*.json to the flow schema"
        );
    }

    #[test]
    fn example_flows_carry_the_schema_and_validate() {
        // The validator must be able to say no, or this test proves nothing.
        assert!(!botmesh_flow_schema::validate(&serde_json::json!({ "version": 2 })).valid);
        let flows = json_files(&root().join("examples/flows"));
        assert!(flows.len() >= 2, "expected example flows, found {flows:?}");
        for file in flows {
            let document = read_json(&file).unwrap();
            assert_eq!(
                document["$schema"],
                "../../docs/schema/flow.schema.json",
                "{}",
                file.display()
            );
            let validation = botmesh_flow_schema::validate(&document);
            assert!(
                validation.valid,
                "{} is invalid: {:?}",
                file.display(),
                validation.issues
            );
        }
    }
}
