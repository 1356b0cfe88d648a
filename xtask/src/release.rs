//! `cargo xtask release <version [--dry-run] | crate-order [--check] | publish-crates VERSION
//! [--dry-run]>`: the release steps `release.yml` runs, and that run here too.
//!
//! - `version` decides what a release run ships: the `version` of `[workspace.package]`, which
//!   every crate and npm package must carry ([`version_problems`], the one lockstep rule). On a
//!   version tag (`GITHUB_REF=refs/tags/vX.Y.Z`) the tag must name that version, else the run
//!   stops before anything is built. It publishes only on a version tag and without
//!   `--dry-run`. Prints `version=…` and `publish=true|false`, and appends them to
//!   `$GITHUB_OUTPUT` when that is set.
//! - `crate-order` prints the crates published to crates.io, one per line, each after the
//!   workspace crates it depends on (normal, build and versioned dev dependencies alike, since
//!   crates.io must already have them); ties are broken by name. `--check` also fails on the
//!   lockstep rule and on a published crate that depends on an unpublished one.
//! - `publish-crates VERSION [--dry-run]` publishes, in that order, the crates not yet on
//!   crates.io at VERSION with one `cargo publish --locked -p NAME …` (Cargo packages and
//!   verifies them all before it uploads the first), then checks that the sparse index serves
//!   each one. Safe to run again after a failure halfway: a crate already on the index is
//!   skipped. Needs `CARGO_REGISTRY_TOKEN` (not for `--dry-run`) and `curl` for the index.
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

/// A workspace crate as `cargo metadata --no-deps` describes it.
#[derive(Debug, Clone)]
pub(crate) struct Crate {
    pub(crate) name: String,
    pub(crate) version: String,
    /// False for `publish = false` (xtask).
    pub(crate) published: bool,
    pub(crate) dependencies: Vec<Dependency>,
}

/// One dependency of a workspace crate.
#[derive(Debug, Clone)]
pub(crate) struct Dependency {
    pub(crate) name: String,
    /// The version requirement (`^0.1.0`), `*` or nothing for a path dependency without one.
    pub(crate) req: Option<String>,
    /// `cargo publish` drops a dev-dependency that has no version.
    pub(crate) dev: bool,
}

/// The workspace crates, read from `cargo metadata --no-deps` (tidy's reading, which the
/// Windows suite under Wine feeds from a file).
pub(crate) fn workspace_crates(root: &Path) -> Result<Vec<Crate>, Box<dyn Error>> {
    let metadata: Value = serde_json::from_slice(&crate::tidy::cargo_metadata(root)?)?;
    crates_of(&metadata)
}

/// The crates of a `cargo metadata` answer.
fn crates_of(metadata: &Value) -> Result<Vec<Crate>, Box<dyn Error>> {
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata has no packages")?;
    let text = |value: &Value, key: &str| value[key].as_str().unwrap_or_default().to_owned();
    Ok(packages
        .iter()
        .map(|package| Crate {
            name: text(package, "name"),
            version: text(package, "version"),
            // `publish = false` is an empty list of registries; absent (null) means crates.io.
            published: package["publish"] != Value::Array(Vec::new()),
            dependencies: package["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| Dependency {
                    name: text(d, "name"),
                    req: d["req"].as_str().map(str::to_owned),
                    dev: d["kind"].as_str() == Some("dev"),
                })
                .collect(),
        })
        .collect())
}

/// The version of `[workspace.package]` in the root `Cargo.toml`.
pub(crate) fn workspace_version(root: &Path) -> Result<String, Box<dyn Error>> {
    let text = fs::read_to_string(root.join("Cargo.toml"))?;
    version_in_cargo_toml(&text)
        .ok_or_else(|| "no version in [workspace.package] of Cargo.toml".into())
}

/// The `version` of `[workspace.package]` in a `Cargo.toml` text.
pub(crate) fn version_in_cargo_toml(cargo_toml: &str) -> Option<String> {
    let mut in_section = false;
    for line in cargo_toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == "[workspace.package]";
            continue;
        }
        if in_section
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "version"
        {
            return Some(value.trim().trim_matches('"').to_owned());
        }
    }
    None
}

/// A workspace dependency `cargo publish` keeps: every one but a dev-dependency without a
/// version (a path dev-dependency is dropped from the published manifest).
fn kept(dependency: &Dependency) -> bool {
    !(dependency.dev && matches!(dependency.req.as_deref(), None | Some("*")))
}

/// The lockstep rule, the one place it is written: every published crate carries `version`,
/// every workspace dependency a published crate keeps asks for `^version`, and every npm
/// package under `npm/` (and every `optionalDependencies` pin of the launcher) carries it too.
/// Returns each problem as a sentence naming the file or crate.
pub(crate) fn version_problems(
    crates: &[Crate],
    npm: &Path,
    version: &str,
) -> Result<Vec<String>, Box<dyn Error>> {
    let mut problems = Vec::new();
    let names: BTreeSet<&str> = crates.iter().map(|c| c.name.as_str()).collect();
    for krate in crates.iter().filter(|c| c.published) {
        if krate.version != version {
            problems.push(format!(
                "crate {} has version {}, the workspace has {version}",
                krate.name, krate.version
            ));
        }
        let wanted = format!("^{version}");
        for dependency in &krate.dependencies {
            if names.contains(dependency.name.as_str())
                && dependency.name != krate.name
                && kept(dependency)
                && dependency.req.as_deref() != Some(wanted.as_str())
            {
                problems.push(format!(
                    "crate {} asks for {} {}, not {wanted} (bump it in [workspace.dependencies] of Cargo.toml)",
                    krate.name,
                    dependency.name,
                    dependency.req.as_deref().unwrap_or("without a version")
                ));
            }
        }
    }
    for dir in crate::npm::package_dirs(npm)? {
        let where_ = format!("npm/{dir}/package.json");
        let manifest = crate::npm::read_json(&npm.join(&dir).join("package.json"))?;
        let found = manifest["version"].as_str().unwrap_or("(none)");
        if found != version {
            problems.push(format!(
                "{where_} has version {found}, the workspace has {version}"
            ));
        }
        for (name, pin) in manifest["optionalDependencies"]
            .as_object()
            .into_iter()
            .flatten()
        {
            if pin.as_str() != Some(version) {
                problems.push(format!(
                    "{where_} pins {name} at {pin}, the workspace has {version}"
                ));
            }
        }
    }
    // The GitHub Action at the repository root installs @botmesh/mcp at its `version`
    // input's default: the release it ships with.
    let action = npm.parent().map(|root| root.join("action.yml"));
    if let Some(action) = action.filter(|a| a.is_file()) {
        let text = std::fs::read_to_string(&action)?;
        match action_version_default(&text) {
            Some(found) if found == version => {}
            found => problems.push(format!(
                "action.yml installs @botmesh/mcp@{} by default (inputs.version.default), the workspace has {version}",
                found.unwrap_or("(none)")
            )),
        }
    }
    Ok(problems)
}

/// The `default` of the `version` input of an action.yml (a two-space indented `inputs:`
/// block, as ours is written), without its quotes.
fn action_version_default(text: &str) -> Option<&str> {
    text.lines()
        .skip_while(|l| l.trim_end() != "inputs:")
        .skip_while(|l| l.trim_end() != "  version:")
        .skip(1)
        .take_while(|l| l.starts_with("    ") || l.trim().is_empty())
        .find_map(|l| l.trim().strip_prefix("default:"))
        .map(|v| v.trim().trim_matches('"').trim_matches('\''))
}

/// The published crates in publishing order, or the problems that forbid an order.
pub(crate) fn crate_order(crates: &[Crate]) -> Result<Vec<String>, Vec<String>> {
    let published: BTreeSet<&str> = crates
        .iter()
        .filter(|c| c.published)
        .map(|c| c.name.as_str())
        .collect();
    let names: BTreeSet<&str> = crates.iter().map(|c| c.name.as_str()).collect();
    let mut problems = Vec::new();
    let mut needs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for krate in crates.iter().filter(|c| c.published) {
        let wanted = needs.entry(krate.name.as_str()).or_default();
        for dependency in krate.dependencies.iter().filter(|d| kept(d)) {
            let other = dependency.name.as_str();
            if !names.contains(other) || other == krate.name {
                continue;
            }
            if published.contains(other) {
                wanted.insert(other);
            } else {
                problems.push(format!(
                    "{} depends on {other}, which is not published",
                    krate.name
                ));
            }
        }
    }
    let mut order: Vec<String> = Vec::new();
    while !needs.is_empty() {
        let done: BTreeSet<&str> = order.iter().map(String::as_str).collect();
        let Some(ready) = needs
            .iter()
            .find(|(_, wanted)| wanted.is_subset(&done))
            .map(|(name, _)| *name)
        else {
            problems.push(format!(
                "dependency cycle among {:?}",
                needs.keys().collect::<Vec<_>>()
            ));
            break;
        };
        order.push(ready.to_owned());
        needs.remove(ready);
    }
    if problems.is_empty() {
        Ok(order)
    } else {
        Err(problems)
    }
}

/// Runs `cargo xtask release …`.
pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let root = crate::project_root();
    match args {
        ["version", rest @ ..] if matches!(rest, [] | ["--dry-run"]) => {
            version(&root, !rest.is_empty())
        }
        ["crate-order", rest @ ..] if matches!(rest, [] | ["--check"]) => {
            let crates = workspace_crates(&root)?;
            let mut problems = match crate_order(&crates) {
                Ok(order) => {
                    if rest.is_empty() {
                        print_lines(&order);
                        return Ok(());
                    }
                    let lockstep =
                        version_problems(&crates, &root.join("npm"), &workspace_version(&root)?)?;
                    if lockstep.is_empty() {
                        print_lines(&order);
                        return Ok(());
                    }
                    lockstep
                }
                Err(problems) => problems,
            };
            problems.iter_mut().for_each(|p| p.insert_str(0, "crate-order: "));
            Err(problems.join("\n").into())
        }
        ["publish-crates", version, rest @ ..] if matches!(rest, [] | ["--dry-run"]) => {
            publish_crates(&root, version, !rest.is_empty())
        }
        _ => Err("usage: cargo xtask release <version [--dry-run] | crate-order [--check] | publish-crates VERSION [--dry-run]>".into()),
    }
}

/// Writes lines to stdout: this is a program's output, read by `release.yml`.
fn print_lines(lines: &[impl AsRef<str>]) {
    for line in lines {
        println!("{}", line.as_ref());
    }
}

/// `release version`.
fn version(root: &Path, dry_run: bool) -> Result<(), Box<dyn Error>> {
    let version = workspace_version(root)?;
    let crates = workspace_crates(root)?;
    let mut problems = version_problems(&crates, &root.join("npm"), &version)?;
    let reference = std::env::var("GITHUB_REF").unwrap_or_default();
    let tag = reference.strip_prefix("refs/tags/v");
    if let Some(tagged) = tag
        && tagged != version
    {
        problems.push(format!(
            "the tag v{tagged} does not name the version {version} of Cargo.toml"
        ));
    }
    if !problems.is_empty() {
        problems
            .iter_mut()
            .for_each(|p| p.insert_str(0, "version: "));
        return Err(problems.join("\n").into());
    }
    let lines = [
        format!("version={version}"),
        format!("publish={}", tag.is_some() && !dry_run),
    ];
    print_lines(&lines);
    if let Some(path) = std::env::var_os("GITHUB_OUTPUT").filter(|p| !p.is_empty()) {
        use std::io::Write as _;
        let mut file = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?;
        writeln!(file, "{}", lines.join("\n"))?;
    }
    Ok(())
}

/// The sparse-index address of a crate (`https://index.crates.io/bo/tm/botmesh-mcp`).
fn index_url(name: &str) -> String {
    let name = name.to_lowercase();
    match name.len() {
        1 => format!("https://index.crates.io/1/{name}"),
        2 => format!("https://index.crates.io/2/{name}"),
        3 => format!("https://index.crates.io/3/{}/{name}", &name[..1]),
        _ => format!(
            "https://index.crates.io/{}/{}/{name}",
            &name[..2],
            &name[2..4]
        ),
    }
}

/// Whether crates.io's index lists `name` at `version`; a network error counts as no.
fn on_index(name: &str, version: &str) -> bool {
    Command::new("curl")
        .args(["-fsSL", "--retry", "3", &index_url(name)])
        .output()
        .is_ok_and(|out| {
            out.status.success()
                && String::from_utf8_lossy(&out.stdout).contains(&format!("\"vers\":\"{version}\""))
        })
}

/// `release publish-crates`.
fn publish_crates(root: &Path, version: &str, dry_run: bool) -> Result<(), Box<dyn Error>> {
    let crates = workspace_crates(root)?;
    let order = crate_order(&crates).map_err(|p| p.join("\n"))?;
    let problems = version_problems(&crates, &root.join("npm"), version)?;
    if !problems.is_empty() {
        return Err(format!("publish-crates: {}", problems.join("\npublish-crates: ")).into());
    }
    eprintln!("publish order: {}", order.join(" "));
    let mut pending = Vec::new();
    for name in &order {
        if on_index(name, version) {
            eprintln!("{name} {version} is already on crates.io: skipped");
        } else {
            pending.push(name.as_str());
        }
    }
    if pending.is_empty() {
        eprintln!("every crate is on crates.io at {version}");
        return Ok(());
    }
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()));
    command.current_dir(root).args(["publish", "--locked"]);
    if dry_run {
        command.arg("--dry-run");
    }
    for name in &pending {
        command.args(["-p", name]);
    }
    if !command.status()?.success() {
        return Err("cargo publish failed".into());
    }
    if dry_run {
        eprintln!(
            "dry run: {} packaged and verified, nothing uploaded",
            pending.join(" ")
        );
        return Ok(());
    }
    // Cargo gives up waiting for the index quietly after a while: check each one.
    for name in pending {
        let mut attempts = 0;
        while !on_index(name, version) {
            attempts += 1;
            if attempts == 60 {
                return Err(format!(
                    "publish-crates: {name} {version} was uploaded but is not on the index after 10 minutes"
                )
                .into());
            }
            std::thread::sleep(Duration::from_secs(10));
        }
        eprintln!("{name} {version} published");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(name: &str, version: &str, deps: &[(&str, Option<&str>, bool)]) -> Crate {
        Crate {
            name: name.to_owned(),
            version: version.to_owned(),
            published: name != "xtask",
            dependencies: deps
                .iter()
                .map(|(n, req, dev)| Dependency {
                    name: (*n).to_owned(),
                    req: req.map(str::to_owned),
                    dev: *dev,
                })
                .collect(),
        }
    }

    /// A package folder's name, its version and its launcher pins.
    type Package<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

    fn npm_dir(packages: &[Package<'_>]) -> tempdir::Dir {
        let dir = tempdir::Dir::new();
        for (name, version, pins) in packages {
            let folder = dir.path().join(name);
            fs::create_dir_all(&folder).unwrap();
            let pins: serde_json::Map<String, Value> = pins
                .iter()
                .map(|(n, v)| ((*n).to_owned(), Value::from(*v)))
                .collect();
            let manifest = serde_json::json!({ "name": name, "version": version, "optionalDependencies": pins });
            fs::write(folder.join("package.json"), manifest.to_string()).unwrap();
        }
        dir
    }

    /// A folder removed when dropped (no crate for this in xtask's dependencies).
    mod tempdir {
        use std::path::{Path, PathBuf};

        pub(super) struct Dir(PathBuf);

        impl Dir {
            pub(super) fn new() -> Self {
                use std::sync::atomic::{AtomicUsize, Ordering};
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                let path = std::env::temp_dir().join(format!(
                    "xtask-release-{}-{}",
                    std::process::id(),
                    NEXT.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&path).unwrap();
                Self(path)
            }

            pub(super) fn path(&self) -> &Path {
                &self.0
            }
        }

        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn the_workspace_is_in_lockstep_and_has_an_order() {
        let root = crate::project_root();
        let crates = workspace_crates(&root).unwrap();
        let version = workspace_version(&root).unwrap();
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        let problems = version_problems(&crates, &root.join("npm"), &version).unwrap();
        assert_eq!(problems, Vec::<String>::new());
        let action = std::fs::read_to_string(root.join("action.yml")).unwrap();
        assert_eq!(action_version_default(&action), Some(version.as_str()));
        assert_eq!(
            action_version_default(
                "inputs:\n  flows:\n    default: x\n  version:\n    description: v\n    default: \"9.9.9\"\nruns:\n"
            ),
            Some("9.9.9")
        );
        let order = crate_order(&crates).unwrap();
        // Every published crate, each after what it needs, xtask never.
        assert_eq!(order.len(), crates.iter().filter(|c| c.published).count());
        assert!(!order.iter().any(|n| n == "xtask"));
        let at = |name: &str| order.iter().position(|n| n == name).unwrap();
        assert!(at("botmesh-flow-schema") < at("botmesh-flow-analyzer"));
        assert!(at("botmesh-mcp") < at("botmesh-mcp-http"));
        assert_eq!(order.last().map(String::as_str), Some("botmesh-mcp-cli"));
    }

    #[test]
    fn a_drifted_crate_a_stale_requirement_and_an_npm_package_off_by_one_are_named() {
        let crates = [
            krate("a", "0.2.0", &[]),
            krate("b", "0.1.9", &[("a", Some("^0.1.0"), false)]),
            // A path dev-dependency without a version is dropped by cargo publish: fine.
            krate(
                "c",
                "0.2.0",
                &[("b", Some("^0.2.0"), false), ("a", None, true)],
            ),
        ];
        let npm = npm_dir(&[
            ("mcp", "0.2.0", &[("@botmesh/mcp-linux-x64", "0.2.1")]),
            ("mcp-linux-x64", "0.2.1", &[]),
        ]);
        let problems = version_problems(&crates, npm.path(), "0.2.0").unwrap();
        assert_eq!(
            problems,
            [
                "crate b has version 0.1.9, the workspace has 0.2.0",
                "crate b asks for a ^0.1.0, not ^0.2.0 (bump it in [workspace.dependencies] of Cargo.toml)",
                "npm/mcp/package.json pins @botmesh/mcp-linux-x64 at \"0.2.1\", the workspace has 0.2.0",
                "npm/mcp-linux-x64/package.json has version 0.2.1, the workspace has 0.2.0",
            ]
        );
    }

    #[test]
    fn the_order_is_topological_with_ties_by_name_and_refuses_what_cannot_be_published() {
        let crates = [
            krate("z", "1.0.0", &[("m", Some("^1.0.0"), false)]),
            krate("m", "1.0.0", &[]),
            krate("b", "1.0.0", &[("m", Some("^1.0.0"), true)]),
            krate("a", "1.0.0", &[("serde", Some("^1"), false)]),
        ];
        assert_eq!(crate_order(&crates).unwrap(), ["a", "m", "b", "z"]);
        let unpublished = [
            krate("a", "1.0.0", &[("xtask", Some("^1.0.0"), false)]),
            krate("xtask", "1.0.0", &[]),
        ];
        assert_eq!(
            crate_order(&unpublished).unwrap_err(),
            ["a depends on xtask, which is not published"]
        );
        let cycle = [
            krate("a", "1.0.0", &[("b", Some("^1.0.0"), false)]),
            krate("b", "1.0.0", &[("a", Some("^1.0.0"), false)]),
        ];
        assert_eq!(
            crate_order(&cycle).unwrap_err(),
            ["dependency cycle among [\"a\", \"b\"]"]
        );
    }

    #[test]
    fn index_addresses_follow_the_sparse_layout() {
        assert_eq!(index_url("a"), "https://index.crates.io/1/a");
        assert_eq!(index_url("ab"), "https://index.crates.io/2/ab");
        assert_eq!(index_url("abc"), "https://index.crates.io/3/a/abc");
        assert_eq!(
            index_url("Botmesh-MCP"),
            "https://index.crates.io/bo/tm/botmesh-mcp"
        );
    }

    #[test]
    fn reads_the_workspace_version_from_its_section_only() {
        let text = "[package]\nversion = \"9.9.9\"\n\n[workspace.package]\nedition = \"2024\"\nversion = \"1.2.3\"\n[x]\nversion = \"0\"\n";
        assert_eq!(version_in_cargo_toml(text).as_deref(), Some("1.2.3"));
        assert_eq!(version_in_cargo_toml("[package]\nversion = \"1\"\n"), None);
    }
}
