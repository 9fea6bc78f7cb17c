//! `cargo carve init`: the README's recommended setup, written into the
//! user's `Cargo.toml` with `toml_edit` (their formatting and comments
//! stay), and a `tests/carve.rs` skeleton.

use std::path::{Path, PathBuf};

use cargo_metadata::{Edition, MetadataCommand, TargetKind};
use clap::Args;
use toml_edit::{value, Array, DocumentMut, InlineTable, Item, Table, TableLike};

/// `init`'s flags.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// Depend on carve at this path (a checkout of carve's repository).
    /// Default: the checkout this cargo-carve was installed from.
    #[arg(long, value_name = "PATH", conflicts_with = "carve_version")]
    carve_path: Option<PathBuf>,
    /// Depend on this version of carve from crates.io instead of a path.
    #[arg(long, value_name = "VERSION")]
    carve_version: Option<String>,
    /// The Cargo.toml of the crate to set up (default: the one cargo finds
    /// from here).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
}

/// Where the carve dependency comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `path = "…"`.
    Path(String),
    /// `version = "…"`.
    Version(String),
}

/// What `init` writes: the new manifest, and a line per change.
#[derive(Debug)]
pub struct Edit {
    /// The manifest's new text.
    pub manifest: String,
    /// What changed, as `[table] key = value` lines.
    pub changes: Vec<String>,
    /// What the user must write differently from the README because of
    /// what the manifest already had (serde under another name).
    pub notes: Vec<String>,
}

/// Runs `init` in the crate of `args.manifest_path` or the current folder.
pub fn run(args: &InitArgs) -> Result<(), String> {
    let mut command = MetadataCommand::new();
    command.cargo_path(crate::run::cargo()).no_deps();
    if let Some(path) = &args.manifest_path {
        command.manifest_path(path);
    }
    let metadata = command
        .exec()
        .map_err(|e| format!("`cargo metadata` failed: {e}"))?;
    let manifest_path = match &args.manifest_path {
        Some(path) => std::path::absolute(path)
            .map_err(|e| format!("--manifest-path {}: {e}", path.display()))?,
        None => nearest_manifest()?,
    };
    let package = metadata
        .workspace_packages()
        .into_iter()
        .find(|p| {
            p.manifest_path.as_std_path().canonicalize().ok() == manifest_path.canonicalize().ok()
        })
        .ok_or_else(|| {
            format!(
                "{} is not a package's manifest (a workspace root without [package]?): \
                 run `cargo carve init` in the crate to set up, or pass its --manifest-path",
                manifest_path.display()
            )
        })?;
    let root = manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let lib = package
        .targets
        .iter()
        .find(|t| {
            t.kind
                .iter()
                .any(|k| matches!(k, TargetKind::Lib | TargetKind::RLib))
        })
        .ok_or_else(|| {
            format!(
                "package `{}` has no library target: carve carves calls of library functions \
                 that system tests make. Move the code to test into src/lib.rs first.",
                package.name
            )
        })?;

    let source = source(args)?;
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let test_file = root.join("tests/carve.rs");
    let edition_2015 = package.edition == Edition::E2015;
    let edit = edit(&text, &source, test_file.exists(), edition_2015)?;
    let skeleton = skeleton(
        package.name.as_str(),
        &lib.name.replace('-', "_"),
        edition_2015,
    );

    // tests/carve.rs first, without overwriting: a file that appeared since
    // the check stops `init` before the manifest changes.
    std::fs::create_dir_all(root.join("tests"))
        .map_err(|e| format!("{}: {e}", root.join("tests").display()))?;
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&test_file)
        .map_err(|e| format!("{}: {e}; nothing changed", test_file.display()))?;
    std::io::Write::write_all(&mut file, skeleton.as_bytes())
        .map_err(|e| format!("{}: {e}", test_file.display()))?;
    std::fs::write(&manifest_path, &edit.manifest)
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;

    println!(
        "cargo carve init: set up carve in `{}` ({}):",
        package.name,
        root.display()
    );
    for change in &edit.changes {
        println!("  Cargo.toml {change}");
    }
    println!("  tests/carve.rs: new, a system test to fill in");
    for note in &edit.notes {
        println!("Note: {note}");
    }
    if let Some(note) = std::fs::read_to_string(lib.src_path.as_std_path())
        .ok()
        .and_then(|root| serde_module_note(&root))
    {
        println!("Note: {note}");
    }
    println!(
        "Next: mark library functions with #[cfg_attr(feature = \"carve\", carve::target)], \
         call them from the system test in tests/carve.rs, then run `cargo carve record`."
    );
    Ok(())
}

/// The carve dependency `args` ask for; by default the checkout this
/// binary was built from, while it is still there.
fn source(args: &InitArgs) -> Result<Source, String> {
    if let Some(version) = &args.carve_version {
        return Ok(Source::Version(version.clone()));
    }
    let (path, flag) = match &args.carve_path {
        Some(path) => (
            std::path::absolute(path)
                .map_err(|e| format!("--carve-path {}: {e}", path.display()))?,
            true,
        ),
        None => (Path::new(env!("CARGO_MANIFEST_DIR")).join(".."), false),
    };
    let path = path.canonicalize().unwrap_or(path);
    if is_carve_checkout(&path) {
        return Ok(Source::Path(path.to_string_lossy().into_owned()));
    }
    Err(if flag {
        format!(
            "--carve-path {}: no carve crate there (a Cargo.toml of package `carve`); \
             give the folder of a carve checkout",
            path.display()
        )
    } else {
        format!(
            "the carve checkout this cargo-carve was built from is gone ({}): \
             pass --carve-path <folder of a carve checkout> or --carve-version <version>",
            path.display()
        )
    })
}

fn is_carve_checkout(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<DocumentMut>().ok())
        .is_some_and(|doc| {
            doc.get("package")
                .and_then(|p| p.get("name"))
                .and_then(Item::as_str)
                == Some("carve")
        })
}

/// The manifest `text` with carve set up, or why `init` leaves it alone
/// (`test_file_exists`: tests/carve.rs is there; `edition_2015`: the
/// package's edition is 2015).
pub fn edit(
    text: &str,
    source: &Source,
    test_file_exists: bool,
    edition_2015: bool,
) -> Result<Edit, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("Cargo.toml does not parse: {e}"))?;

    let mut there = Vec::new();
    if test_file_exists {
        there.push("tests/carve.rs exists".to_owned());
    }
    let tests = doc.get("test").and_then(Item::as_array_of_tables);
    if tests.is_some_and(|t| {
        t.iter()
            .any(|t| t.get("name").and_then(Item::as_str) == Some("carve"))
    }) {
        there.push("Cargo.toml has a [[test]] named `carve`".to_owned());
    }
    if table_like(&doc, "features").is_some_and(|f| f.contains_key("carve")) {
        there.push("Cargo.toml has a feature `carve`".to_owned());
    }
    if table_like(&doc, "dependencies").is_some_and(|d| d.contains_key("carve")) {
        there.push("Cargo.toml has a dependency `carve`".to_owned());
    }
    if !there.is_empty() {
        return Err(format!(
            "cargo carve init changed nothing: {}. carve looks set up already (run \
             `cargo carve record`); to start over, remove {}.",
            there.join("; "),
            if there.len() == 1 { "it" } else { "them" }
        ));
    }

    let mut changes = Vec::new();
    // The `carve` feature's list depends on the serde dependency already there.
    let serde = table_like(&doc, "dependencies")
        .and_then(|d| d.get("serde"))
        .cloned();
    let mut feature = vec!["dep:carve".to_owned()];
    let mut notes = Vec::new();
    // serde under another name (`serde_lib = { package = "serde" }`, a
    // dev-dependency in bitflags): cargo rejects a crate that depends on
    // serde under two names, so carve's serde takes that name too.
    let renamed = match &serde {
        None => renamed_serde(&doc),
        Some(_) => None,
    };
    match (&serde, &renamed) {
        (None, Some((key, normal))) => {
            if !*normal {
                feature.push(format!("dep:{key}"));
            }
            // The renamed serde's own feature, or the crate's serde support
            // through `serde_core`.
            feature.extend(other_serde_support(&doc));
            feature.push(format!("{key}/derive"));
            notes.push(format!(
                "this crate names serde `{key}` (cargo takes one name per crate), so derive it as \
                 #[cfg_attr(feature = \"carve\", derive({key}::Serialize, {key}::Deserialize), \
                 serde(crate = \"{key}\"))]"
            ));
        }
        (None, None) => {
            feature.push("dep:serde".to_owned());
            // serde support of the crate's own under another name
            // (`serde_core`, a renamed `serde1 = { package = "serde" }`):
            // its types implement serde only with it turned on.
            feature.extend(other_serde_support(&doc));
        }
        (Some(serde), _) => {
            let derive = dependency_key(serde, "package") != Some("serde_core");
            if is_optional(serde) {
                // A feature named `serde` (the dependency's implicit one,
                // which a `dep:serde` would remove, or the crate's own) is
                // the crate's serde support: turn it on, never break it.
                let explicit =
                    table_like(&doc, "features").is_some_and(|f| f.contains_key("serde"));
                let implicit = !named_with_dep(&doc, "serde");
                feature.push(
                    if explicit || implicit {
                        "serde"
                    } else {
                        "dep:serde"
                    }
                    .to_owned(),
                );
            }
            if derive {
                feature.push("serde/derive".to_owned());
            }
        }
    }

    let mut carve = InlineTable::new();
    match source {
        Source::Path(path) => carve.insert("path", path.as_str().into()),
        Source::Version(version) => carve.insert("version", version.as_str().into()),
    };
    carve.insert("optional", true.into());
    let dependencies = table_like_mut(&mut doc, "dependencies", "package")?;
    dependencies.insert("carve", value(carve.clone()));
    changes.push(format!("[dependencies] carve = {carve}"));
    match (&serde, &renamed) {
        (Some(_), _) | (None, Some((_, true))) => {}
        (None, Some((key, false))) => {
            let mut serde = InlineTable::new();
            serde.insert("package", "serde".into());
            serde.insert("version", "1".into());
            serde.insert("features", Array::from_iter(["derive"]).into());
            serde.insert("optional", true.into());
            dependencies.insert(key, value(serde.clone()));
            changes.push(format!("[dependencies] {key} = {serde}"));
        }
        (None, None) => {
            let mut serde = InlineTable::new();
            serde.insert("version", "1".into());
            serde.insert("features", Array::from_iter(["derive"]).into());
            serde.insert("optional", true.into());
            dependencies.insert("serde", value(serde.clone()));
            changes.push(format!("[dependencies] serde = {serde}"));
        }
    }

    let list = Array::from_iter(feature.iter().map(String::as_str));
    table_like_mut(&mut doc, "features", "dependencies")?.insert("carve", value(list.clone()));
    changes.push(format!("[features] carve = {list}"));

    let mut test = Table::new();
    test.insert("name", value("carve"));
    test.insert("harness", value(false));
    test.insert("required-features", value(Array::from_iter(["carve"])));
    let line = test
        .iter()
        .map(|(k, v)| format!("{k} = {}", v.to_string().trim()))
        .collect::<Vec<_>>()
        .join(", ");
    if doc.get("test").is_none() {
        // In edition 2015, one [[test]] turns off finding tests/*.rs, unless
        // `autotests` is set: keep the crate's own integration tests.
        if edition_2015 {
            if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
                if !package.contains_key("autotests") {
                    package.insert("autotests", value(true));
                    changes.push(
                        "[package] autotests = true (edition 2015: without it, the [[test]] \
                         below would turn off the crate's other tests/*.rs)"
                            .to_owned(),
                    );
                }
            }
        }
        // The first [[test]] goes last in the file, after every other table.
        let last = doc.iter().filter_map(|(_, item)| last_position(item)).max();
        test.set_position(last.map(|p| p + 1));
        doc.insert("test", Item::ArrayOfTables(Default::default()));
    }
    match doc.get_mut("test") {
        Some(Item::ArrayOfTables(tests)) => tests.push(test),
        _ => return Err("Cargo.toml: `test` is not an array of [[test]] tables".to_owned()),
    }
    changes.push(format!("[[test]] {line}"));

    Ok(Edit {
        manifest: doc.to_string(),
        changes,
        notes,
    })
}

/// The name of a dependency on the `serde` package under a name other than
/// `serde`, in `[dependencies]` or `[dev-dependencies]` (also a target's),
/// and whether it is a normal dependency.
fn renamed_serde(doc: &DocumentMut) -> Option<(String, bool)> {
    let renamed = |table: Option<&dyn TableLike>| {
        table?.iter().find_map(|(key, dependency)| {
            (key != "serde" && dependency_key(dependency, "package") == Some("serde"))
                .then(|| key.to_owned())
        })
    };
    let targets: Vec<&dyn TableLike> = table_like(doc, "target")
        .map(|t| {
            t.iter()
                .filter_map(|(_, item)| item.as_table_like())
                .collect()
        })
        .unwrap_or_default();
    let in_table = |kind: &str| {
        renamed(table_like(doc, kind)).or_else(|| {
            targets
                .iter()
                .find_map(|t| renamed(t.get(kind).and_then(Item::as_table_like)))
        })
    };
    match in_table("dependencies") {
        Some(key) => Some((key, true)),
        None => in_table("dev-dependencies").map(|key| (key, false)),
    }
}

/// The feature that turns on an optional dependency on `serde` or
/// `serde_core` under a name other than `serde`: the crate's feature named
/// `serde` when it lists the dependency, else the first one that does,
/// else the dependency's implicit feature. `None` when there is no such
/// dependency or it is always on.
fn other_serde_support(doc: &DocumentMut) -> Option<String> {
    let (key, _) = table_like(doc, "dependencies")?
        .iter()
        .find(|(key, dependency)| {
            let package = dependency_key(dependency, "package").unwrap_or(key);
            *key != "serde" && matches!(package, "serde" | "serde_core") && is_optional(dependency)
        })?;
    let turns_on = |list: &Item| {
        list.as_array().is_some_and(|a| {
            a.iter().filter_map(|v| v.as_str()).any(|v| {
                v.strip_prefix("dep:").unwrap_or(v) == key
                    || v.split_once(['/', '?']).is_some_and(|(k, _)| k == key)
            })
        })
    };
    let features = table_like(doc, "features");
    let listing: Vec<&str> = features
        .map(|f| {
            f.iter()
                .filter(|(_, list)| turns_on(list))
                .map(|(name, _)| name)
                .collect()
        })
        .unwrap_or_default();
    let named_serde = listing.iter().find(|&&name| name == "serde");
    match named_serde.or(listing.first()) {
        Some(name) => Some((*name).to_owned()),
        // No `dep:` anywhere: cargo made the implicit feature.
        None if !named_with_dep(doc, key) => Some(key.to_owned()),
        None => None,
    }
}

/// The text of `key` in a dependency's table (`package`), if it has one.
fn dependency_key<'a>(dependency: &'a Item, key: &str) -> Option<&'a str> {
    dependency.as_table_like()?.get(key)?.as_str()
}

/// Whether a dependency is `optional = true`.
fn is_optional(dependency: &Item) -> bool {
    dependency
        .as_table_like()
        .and_then(|t| t.get("optional"))
        .and_then(Item::as_bool)
        == Some(true)
}

/// Whether some feature names the dependency `key` as `dep:key`, which
/// keeps cargo from making the implicit feature of its name.
fn named_with_dep(doc: &DocumentMut, key: &str) -> bool {
    let dep = format!("dep:{key}");
    table_like(doc, "features").is_some_and(|f| {
        f.iter().any(|(_, list)| {
            list.as_array()
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(dep.as_str())))
        })
    })
}

fn table_like<'a>(doc: &'a DocumentMut, key: &str) -> Option<&'a dyn TableLike> {
    doc.get(key).and_then(Item::as_table_like)
}

/// The table `key`, made when missing and then placed after the table
/// `after` (toml_edit would put it last, after `[workspace]` or
/// `[profile.*]`).
fn table_like_mut<'a>(
    doc: &'a mut DocumentMut,
    key: &str,
    after: &str,
) -> Result<&'a mut dyn TableLike, String> {
    match doc.get_mut(key) {
        None => {
            let mut table = Table::new();
            table.set_position(doc.get(after).and_then(last_position));
            doc.insert(key, Item::Table(table));
        }
        // Only `[dependencies.serde]` in the file: the header a new key
        // brings goes before its first such table, not last.
        Some(Item::Table(table)) if table.position().is_none() => {
            let first = table
                .iter()
                .filter_map(|(_, inner)| inner.as_table().and_then(Table::position))
                .min();
            table.set_position(first);
        }
        Some(_) => {}
    }
    doc.get_mut(key)
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| format!("Cargo.toml: `{key}` is not a table"))
}

/// The position in the document of the last header of a table and the
/// tables inside it (`[dependencies.serde]`): a table given that position
/// is written right after them.
fn last_position(item: &Item) -> Option<isize> {
    match item {
        Item::Table(table) => table
            .iter()
            .filter_map(|(_, inner)| last_position(inner))
            .chain(table.position())
            .max(),
        Item::ArrayOfTables(tables) => tables
            .iter()
            .filter_map(|t| last_position(&Item::Table(t.clone())))
            .max(),
        _ => None,
    }
}

/// tests/carve.rs for package `package`, whose library is `lib`.
pub fn skeleton(package: &str, lib: &str, edition_2015: bool) -> String {
    let link = if edition_2015 {
        format!("extern crate carve;\nextern crate {lib}; // links the library, so its targets register\n")
    } else {
        format!("use {lib} as _; // links the library, so its targets register\n")
    };
    format!(
        r#"//! carve's system tests of `{package}`. `cargo carve record` runs them and
//! carves every call of a function marked
//! `#[cfg_attr(feature = "carve", carve::target)]` into `carved/`;
//! `cargo carve test` replays each carved call as a unit test.

{link}
/// Use the crate as its users do: every call of a target made here is
/// carved.
#[carve::system_test]
fn works_as_documented() {{
    // assert_eq!({lib}::parse("1.2.3").unwrap().to_string(), "1.2.3");
}}

carve::main!();
"#
    )
}

/// The `Cargo.toml` cargo would use from the current folder.
fn nearest_manifest() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?;
    cwd.ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "no Cargo.toml in {} or any folder above it: run `cargo carve init` in a crate, \
                 or pass --manifest-path",
                cwd.display()
            )
        })
}

/// What to say when the crate root declares a module named `serde`
/// (uuid 1.29.3's `pub mod serde`): inside the crate, `serde::Serialize`
/// names that module, and the derive fails with "could not find
/// `Serialize` in `serde`".
fn serde_module_note(root: &str) -> Option<String> {
    let declares = root.lines().any(|line| {
        let line = line.trim_start();
        let line = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        line.strip_prefix("mod serde")
            .is_some_and(|rest| rest.starts_with([';', ' ', '{']))
    });
    declares.then(|| {
        "the crate root declares a module `serde`, which `serde::…` names inside the crate: \
         derive with the crate's path, #[cfg_attr(feature = \"carve\", \
         derive(::serde::Serialize, ::serde::Deserialize))]"
            .to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> Source {
        Source::Path("/src/carve".to_owned())
    }

    fn edited(text: &str) -> String {
        let edit = edit(text, &path(), false, false).unwrap();
        format!("{}---\n{}", edit.manifest, edit.changes.join("\n"))
    }

    #[test]
    fn a_crate_without_serde_gets_the_recommended_setup_with_its_comments_kept() {
        insta::assert_snapshot!(edited(r#"[package]
name = "dates"   # the name
version = "0.1.0"

# What the crate needs.
[dependencies]
itoa = "1"
"#), @r#"
        [package]
        name = "dates"   # the name
        version = "0.1.0"

        # What the crate needs.
        [dependencies]
        itoa = "1"
        carve = { path = "/src/carve", optional = true }
        serde = { version = "1", features = ["derive"], optional = true }

        [features]
        carve = ["dep:carve", "dep:serde"]

        [[test]]
        name = "carve"
        harness = false
        required-features = ["carve"]
        ---
        [dependencies] carve = { path = "/src/carve", optional = true }
        [dependencies] serde = { version = "1", features = ["derive"], optional = true }
        [features] carve = ["dep:carve", "dep:serde"]
        [[test]] name = "carve", harness = false, required-features = ["carve"]
        "#);
    }

    #[test]
    fn an_optional_serde_with_its_implicit_feature_is_turned_on_by_name() {
        // `dep:serde` would remove the implicit `serde` feature that
        // `serde_support` names, and cargo would reject the manifest.
        insta::assert_snapshot!(edited(r#"[package]
name = "temps"

[features]
serde_support = ["serde"]

[dependencies]
serde = { version = "1", optional = true }
"#), @r#"
        [package]
        name = "temps"

        [features]
        serde_support = ["serde"]
        carve = ["dep:carve", "serde", "serde/derive"]

        [dependencies]
        serde = { version = "1", optional = true }
        carve = { path = "/src/carve", optional = true }

        [[test]]
        name = "carve"
        harness = false
        required-features = ["carve"]
        ---
        [dependencies] carve = { path = "/src/carve", optional = true }
        [features] carve = ["dep:carve", "serde", "serde/derive"]
        [[test]] name = "carve", harness = false, required-features = ["carve"]
        "#);
    }

    #[test]
    fn serde_behind_dep_or_always_on_or_serde_core() {
        let feature = |text: &str| {
            let edit = edit(text, &path(), false, false).unwrap();
            edit.changes
                .into_iter()
                .find(|c| c.starts_with("[features]"))
                .unwrap()
        };
        // `dep:serde` already used, no feature `serde`: enable the dependency.
        assert_eq!(
            feature("[features]\nser = [\"dep:serde\"]\n[dependencies]\nserde = { version = \"1\", optional = true }\n"),
            r#"[features] carve = ["dep:carve", "dep:serde", "serde/derive"]"#
        );
        // A feature of its own named `serde`: that is the crate's serde support.
        assert_eq!(
            feature("[features]\nserde = [\"dep:serde\", \"chrono/serde\"]\n[dependencies]\nserde = { version = \"1\", optional = true }\n"),
            r#"[features] carve = ["dep:carve", "serde", "serde/derive"]"#
        );
        // Always on: only its derive.
        assert_eq!(
            feature("[dependencies]\nserde = \"1\"\n"),
            r#"[features] carve = ["dep:carve", "serde/derive"]"#
        );
        // serde_core has no derive feature.
        assert_eq!(
            feature("[dependencies.serde]\npackage = \"serde_core\"\nversion = \"1\"\noptional = true\n"),
            r#"[features] carve = ["dep:carve", "serde"]"#
        );
    }

    #[test]
    fn serde_support_under_another_name_is_turned_on_beside_a_serde_of_carves() {
        let feature = |text: &str| {
            let edit = edit(text, &path(), false, false).unwrap();
            let added = edit
                .changes
                .iter()
                .any(|c| c.starts_with("[dependencies] serde ="));
            let feature = edit
                .changes
                .into_iter()
                .find(|c| c.starts_with("[features]"));
            (feature.unwrap(), added)
        };
        // serde_core behind the crate's feature `serde` (smol_str, uuid).
        assert_eq!(
            feature("[features]\nstd = []\nserde = [\"dep:serde_core\"]\n[dependencies]\nserde_core = { version = \"1\", optional = true }\n"),
            (r#"[features] carve = ["dep:carve", "dep:serde", "serde"]"#.to_owned(), true)
        );
        // A renamed serde: its implicit feature and derive, no second serde
        // (cargo rejects a crate that depends on serde under two names).
        assert_eq!(
            feature("[dependencies]\nserde1 = { package = \"serde\", version = \"1\", optional = true }\n"),
            (r#"[features] carve = ["dep:carve", "serde1", "serde1/derive"]"#.to_owned(), false)
        );
        // Turned on by a feature of another name, as `crate/feature` too.
        assert_eq!(
            feature("[features]\nwith-serde = [\"serde_core/std\", \"dep:serde_core\"]\n[dependencies.serde_core]\nversion = \"1\"\noptional = true\n"),
            (r#"[features] carve = ["dep:carve", "dep:serde", "with-serde"]"#.to_owned(), true)
        );
        // Always on: nothing to turn on.
        assert_eq!(
            feature("[dependencies]\nserde_core = \"1\"\n"),
            (
                r#"[features] carve = ["dep:carve", "dep:serde"]"#.to_owned(),
                true
            )
        );
    }

    #[test]
    fn a_module_named_serde_in_the_crate_root_is_pointed_out() {
        for root in [
            "pub mod serde;\n",
            "#[cfg(feature = \"serde\")]\npub(crate) mod serde {\n}\n",
            "mod serde ;",
        ] {
            let note = serde_module_note(root).expect(root);
            assert!(
                note.contains("derive(::serde::Serialize, ::serde::Deserialize)"),
                "{note}"
            );
        }
        for root in [
            "use serde::Serialize;\n",
            "mod serde_impls;\n",
            "// mod serde;\n",
        ] {
            assert_eq!(serde_module_note(root), None, "{root}");
        }
    }

    #[test]
    fn serde_renamed_in_the_dev_dependencies_names_carves_serde_the_same() {
        // bitflags 2.13.2: `serde_lib = { package = "serde" }` for its tests;
        // a second name for serde in [dependencies] makes cargo refuse the
        // crate ("depends on crate `serde` multiple times with different
        // names").
        let edit = edit(
            r#"[package]
name = "flags"

[features]
serde = ["serde_core"]

[dependencies.serde_core]
version = "1"
optional = true

[dev-dependencies.serde_lib]
version = "1.0.103"
features = ["derive"]
package = "serde"
"#,
            &path(),
            false,
            false,
        )
        .unwrap();
        insta::assert_snapshot!(format!("{}---\n{}\n---\n{}", edit.manifest, edit.changes.join("\n"), edit.notes.join("\n")), @r#"
        [package]
        name = "flags"

        [features]
        serde = ["serde_core"]
        carve = ["dep:carve", "dep:serde_lib", "serde", "serde_lib/derive"]

        [dependencies]
        carve = { path = "/src/carve", optional = true }
        serde_lib = { package = "serde", version = "1", features = ["derive"], optional = true }

        [dependencies.serde_core]
        version = "1"
        optional = true

        [dev-dependencies.serde_lib]
        version = "1.0.103"
        features = ["derive"]
        package = "serde"

        [[test]]
        name = "carve"
        harness = false
        required-features = ["carve"]
        ---
        [dependencies] carve = { path = "/src/carve", optional = true }
        [dependencies] serde_lib = { package = "serde", version = "1", features = ["derive"], optional = true }
        [features] carve = ["dep:carve", "dep:serde_lib", "serde", "serde_lib/derive"]
        [[test]] name = "carve", harness = false, required-features = ["carve"]
        ---
        this crate names serde `serde_lib` (cargo takes one name per crate), so derive it as #[cfg_attr(feature = "carve", derive(serde_lib::Serialize, serde_lib::Deserialize), serde(crate = "serde_lib"))]
        "#);
    }

    #[test]
    fn new_tables_follow_the_dependencies_not_the_end_of_the_file() {
        insta::assert_snapshot!(edited(r#"[package]
name = "x"

[dependencies.itoa]
version = "1"

[workspace]

[profile.release]
lto = true
"#), @r#"
        [package]
        name = "x"

        [dependencies]
        carve = { path = "/src/carve", optional = true }
        serde = { version = "1", features = ["derive"], optional = true }

        [dependencies.itoa]
        version = "1"

        [features]
        carve = ["dep:carve", "dep:serde"]

        [workspace]

        [profile.release]
        lto = true

        [[test]]
        name = "carve"
        harness = false
        required-features = ["carve"]
        ---
        [dependencies] carve = { path = "/src/carve", optional = true }
        [dependencies] serde = { version = "1", features = ["derive"], optional = true }
        [features] carve = ["dep:carve", "dep:serde"]
        [[test]] name = "carve", harness = false, required-features = ["carve"]
        "#);
        // No [dependencies] at all: both new tables after [package].
        let edit = edit(
            "[package]\nname = \"x\"\n\n[workspace]\n",
            &path(),
            false,
            false,
        )
        .unwrap();
        let order: Vec<&str> = edit
            .manifest
            .lines()
            .filter(|l| l.starts_with('['))
            .collect();
        assert_eq!(
            order,
            [
                "[package]",
                "[dependencies]",
                "[features]",
                "[workspace]",
                "[[test]]"
            ]
        );
    }

    #[test]
    fn dependencies_only_as_subtables_get_their_header_before_them() {
        let edit = edit(
            "[package]\nname = \"x\"\n\n[features]\nserde = [\"dep:serde\"]\n\n[dependencies.serde]\nversion = \"1\"\noptional = true\n\n[target.'cfg(unix)'.dependencies.libc]\nversion = \"0.2\"\n",
            &path(),
            false,
            false,
        )
        .unwrap();
        insta::assert_snapshot!(edit.manifest, @r#"
        [package]
        name = "x"

        [features]
        serde = ["dep:serde"]
        carve = ["dep:carve", "serde", "serde/derive"]

        [dependencies]
        carve = { path = "/src/carve", optional = true }

        [dependencies.serde]
        version = "1"
        optional = true

        [target.'cfg(unix)'.dependencies.libc]
        version = "0.2"

        [[test]]
        name = "carve"
        harness = false
        required-features = ["carve"]
        "#);
    }

    #[test]
    fn a_version_instead_of_a_path() {
        let edit = edit(
            "[package]\nname = \"x\"\n",
            &Source::Version("0.1".into()),
            false,
            false,
        )
        .unwrap();
        assert_eq!(
            edit.changes[0],
            r#"[dependencies] carve = { version = "0.1", optional = true }"#
        );
    }

    #[test]
    fn an_existing_setup_is_refused_naming_each_part() {
        let text = r#"[package]
name = "x"
[features]
carve = ["dep:carve"]
[dependencies]
carve = { path = "../carve", optional = true }
[[test]]
name = "carve"
harness = false
"#;
        insta::assert_snapshot!(edit(text, &path(), true, false).unwrap_err(), @"cargo carve init changed nothing: tests/carve.rs exists; Cargo.toml has a [[test]] named `carve`; Cargo.toml has a feature `carve`; Cargo.toml has a dependency `carve`. carve looks set up already (run `cargo carve record`); to start over, remove them.");
        insta::assert_snapshot!(edit("[package]\nname = \"x\"\n", &path(), true, false).unwrap_err(), @"cargo carve init changed nothing: tests/carve.rs exists. carve looks set up already (run `cargo carve record`); to start over, remove it.");
    }

    #[test]
    fn an_edition_2015_crate_keeps_finding_its_own_tests() {
        // strsim 0.11.1 (no `edition`, tests/lib.rs): cargo builds only the
        // [[test]] targets listed once one is, and warns.
        let text = "[package]\nname = \"strsim\"\nversion = \"0.11.1\"\n";
        let edit_2015 = edit(text, &path(), false, true).unwrap();
        assert!(
            edit_2015.manifest.starts_with(
                "[package]\nname = \"strsim\"\nversion = \"0.11.1\"\nautotests = true\n"
            ),
            "{}",
            edit_2015.manifest
        );
        assert!(
            edit_2015
                .changes
                .iter()
                .any(|c| c.starts_with("[package] autotests = true (edition 2015")),
            "{:?}",
            edit_2015.changes
        );
        // Later editions find tests/*.rs anyway; a crate that chose, or
        // that already lists its tests, is left as it is.
        for (text, edition_2015) in [
            (text.to_owned(), false),
            (format!("{text}autotests = false\n"), true),
            (format!("{text}\n[[test]]\nname = \"lib\"\n"), true),
        ] {
            let edit = edit(&text, &path(), false, edition_2015).unwrap();
            assert_eq!(
                edit.manifest.matches("autotests").count(),
                text.matches("autotests").count(),
                "{text}"
            );
            assert!(
                !edit.changes.iter().any(|c| c.contains("autotests")),
                "{text}"
            );
        }
    }

    #[test]
    fn the_skeleton_links_the_library_in_every_edition() {
        assert!(skeleton("my-dates", "my_dates", false).contains("use my_dates as _;"));
        let old = skeleton("my-dates", "my_dates", true);
        assert!(
            old.contains("extern crate carve;\nextern crate my_dates;"),
            "{old}"
        );
    }
}
