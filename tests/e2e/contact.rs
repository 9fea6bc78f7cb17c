//! First contact: code written before anyone thought of carve (`contact/`,
//! `contact2015/`) compiles with carve's attributes on it, records and
//! replays. Trait impls of one type with one method name, impl blocks whose
//! public methods include some carve cannot carve, helpers marked inside a
//! target block, `impl Trait` returns, `const`/`async`/`unsafe` functions,
//! a lifetime-generic impl, and a crate of every edition.

use insta::assert_snapshot;

use crate::{Project, Run};

#[test]
fn code_written_before_carve_compiles_records_and_replays() {
    let p = Project::of("contact", "contact");
    let record = p.record();
    record.assert_success();
    // Methods carve cannot carve are named once, when recording.
    let output = record.output();
    let skipped: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("skipped in impl"))
        .collect();
    assert_snapshot!(skipped.join("\n"), @r#"
    carve: skipped in impl Meters: scale (generic), zero, is_zero (const fn), fetch (async fn), apply (parameter `f`) — mark methods with #[carve::target] to choose
    carve: skipped in impl Words: count (parameter `self`: `Words` has neither serde nor `Display + FromStr`) — mark methods with #[carve::target] to choose
    "#);
    // Each trait impl's method has a name and a file of its own.
    let files: Vec<String> = p
        .carved()
        .into_keys()
        .filter(|f| f.ends_with(".ron"))
        .collect();
    assert_snapshot!(files.join("\n"), @r#"
    Meters/From(u16)/from.ron
    Meters/From(u32)/from.ron
    Meters/halve.ron
    Meters/join.ron
    Meters/new.ron
    Words/new.ron
    shout.ron
    "#);
    assert_snapshot!(record.summary(), @r#"
    carve: branch coverage of instrumented functions by carved and generated calls
      function                 kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      Meters::From<u16>::from  target     -                    -               2/2   reach    -              (1 carved, 0 generated calls)
      Meters::From<u32>::from  target     2/2    100.0%        0/1             4/5   reach    2/2    100.0%  (2 carved, 0 generated calls)
      Meters::apply            helper     -                    -               -     not reached
      Meters::fetch            helper     -                    -               -     not reached
      Meters::halve            target     -                    -               2/2   reach    1/2     50.0%  (1 carved, 0 generated calls)
      Meters::is_zero          helper     -                    -               -     not instrumented (const fn)
      Meters::join             target     -                    -               -     reach    -              (1 carved, 0 generated calls)
      Meters::mask             helper     1/2     50.0%        0/1             3/5   reached from Meters::halve
      Meters::new              target     -                    -               -     reach    -              (2 carved, 0 generated calls)
      Meters::scale            helper     -                    -               0/2   not reached
      Meters::zero             helper     -                    -               -     not instrumented (const fn)
      Words::count             helper     -                    -               -     not reached
      Words::new               target     -                    -               -     reach    -              (1 carved, 0 generated calls)
      adder                    helper     1/2     50.0%        0/1             5/7   reached from shout
      cube                     helper     -                    -               -     not instrumented (const fn)
      digits                   helper     3/6     50.0%        0/2             6/10  reached from shout
      double                   helper     0/2      0.0%        0/1             0/7   not reached
      largest                  helper     4/4    100.0%        -               4/5   reached from shout
      later                    helper     -                    -               0/2   not reached
      peek                     helper     1/2     50.0%        -               1/1   reached from shout
      shout                    target     4/6     66.7%        0/2             6/10  reach   15/24    62.5%  (2 carved, 0 generated calls)
      soon                     helper     0/2      0.0%        0/1             0/5   reached from shout
      upper                    helper     2/2    100.0%        0/2             4/5   reached from shout
      total                              18/30    60.0%        0/11           37/68
    carve: hint: `Meters::From<u16>::from`, `Meters::join`, `Meters::new`, `Words::new` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_snapshot!(replay.results(), @r#"
    test carved::Meters::From<u16>::from::0001 ... ok
    test carved::Meters::From<u32>::from::0001 ... ok
    test carved::Meters::From<u32>::from::0002 ... ok
    test carved::Meters::halve::0001 ... ok
    test carved::Meters::join::0001 ... ok
    test carved::Meters::new::0001 ... ok
    test carved::Meters::new::0002 ... ok
    test carved::Words::new::0001 ... ok
    test carved::shout::0001 ... ok
    test carved::shout::0002 ... ok
    test system::converts ... ok
    test system::reads_words ... ok
    test system::shouts ... ok
    "#);
    // Names with `<>` are found from their files, which spell them `()`.
    let exact = p.test(&[], &["--exact", "carved::Meters::From<u32>::from::0002"]);
    exact.assert_success();
    assert_snapshot!(exact.results(), @"test carved::Meters::From<u32>::from::0002 ... ok");
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "20")], &["From<"]);
    generate.assert_success();
    let generated: Vec<String> = generate
        .results()
        .lines()
        .filter(|l| l.contains("generate::"))
        .map(str::to_owned)
        .collect();
    assert_snapshot!(generated.join("\n"), @r"
    test generate::Meters::From<u16>::from ... ok
    test generate::Meters::From<u32>::from ... ok
    ");
}

/// A crate with no `edition` key is Rust 2015, where `::carve` would name a
/// module at the crate root; the same crate then builds and replays as
/// 2018, 2021 and 2024.
#[test]
fn crates_of_every_edition_compile_record_and_replay() {
    let p = Project::of("contact2015", "contact2015");
    assert!(!p.read("Cargo.toml").contains("edition"));
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r"
    test carved::Meters::From<u16>::from::0001 ... ok
    test carved::Meters::add::0001 ... ok
    test carved::parse::0001 ... ok
    test carved::parse::0002 ... ok
    test system::parses ... ok
    ");
    let manifest = p.read("Cargo.toml");
    for edition in ["2018", "2021", "2024"] {
        p.write(
            "Cargo.toml",
            &manifest.replace(
                "publish = false",
                &format!("publish = false\nedition = \"{edition}\""),
            ),
        );
        let replay = p.test(&[], &[]);
        replay.assert_success();
        assert_eq!(
            replay.results(),
            record.results(),
            "edition {edition}:\n{}",
            replay.output()
        );
    }
}

/// A target carve refuses, in a Rust 2015 crate, gets carve's message: the
/// error itself (`::core::compile_error!`) resolves there too, where it
/// used to drown in "cannot find `core` in the crate root".
#[test]
fn a_refused_target_in_a_2015_crate_gets_carves_message() {
    let p = Project::of("contact2015", "contact2015-refused");
    p.write(
        "src/lib.rs",
        &format!(
            "{}\n#[cfg_attr(feature = \"carve\", carve::target)]\npub fn first<T: Clone>(items: Vec<T>) -> Option<T> {{\n    items.first().cloned()\n}}\n",
            p.read("src/lib.rs")
        ),
    );
    let build = Run::of(p.cargo(&["build", "--features", "carve"]));
    build.assert_failure();
    let errors: Vec<&str> = build
        .stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .collect();
    assert_snapshot!(errors.join("\n"), @r#"
    error: `T` is generic: carve carves the function at the types you name in its attribute, `#[carve::target(generics(T = String))]` (one `generics(…)` per instantiation).
    error: could not compile `contact2015-contact2015-refused` (lib) due to 1 previous error
    "#);
}

/// A `#![no_std]` crate has no `::std` to name: what a target expands to
/// names std's items through carve (the owned `String` of a `&str`, the
/// `Vec` of a `&[u8]`, the panic catch), so it records and replays.
#[test]
fn a_no_std_crate_records_and_replays() {
    let p = Project::of("contact2015", "contact-no-std");
    p.write(
        "src/lib.rs",
        r#"#![no_std]
//! A `#![no_std]` crate: nothing of std is in scope.

#[cfg_attr(feature = "carve", carve::target)]
pub fn digits(s: &str) -> usize {
    s.bytes().filter(|b| b.is_ascii_digit()).count()
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn checksum(bytes: &[u8]) -> u8 {
    if bytes.is_empty() {
        panic!("nothing to sum");
    }
    bytes.iter().fold(0u8, |a, b| a.wrapping_add(*b))
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"extern crate carve;
extern crate contact2015;

#[carve::system_test]
fn counts() {
    assert_eq!(contact2015::digits("a1b22"), 3);
    assert_eq!(contact2015::checksum(b"ab"), 195);
    assert!(std::panic::catch_unwind(|| contact2015::checksum(b"")).is_err());
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::checksum::0001 ... ok
    test carved::checksum::0002 ... ok
    test carved::digits::0001 ... ok
    test system::counts ... ok
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
}

#[test]
fn references_inside_parameters_are_lent_from_owned_values() {
    let p = Project::of("contact", "contact-lent");
    p.write(
        "src/lib.rs",
        r#"//! Public functions that take references inside other types.

#[cfg_attr(feature = "carve", carve::target)]
pub fn greet(name: Option<&str>) -> String {
    match name {
        Some(name) if name.len() > 3 => format!("hello, {name}"),
        Some(name) => format!("hi {name}"),
        None => "hello".to_owned(),
    }
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn join(parts: &[&str], sep: &str) -> String {
    if parts.len() > 2 {
        return parts.join(sep);
    }
    parts.concat()
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn longest(words: Vec<&str>) -> usize {
    words.iter().map(|w| w.len()).max().unwrap_or(0)
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn label(pair: (&str, u32), tags: [Option<&str>; 2]) -> String {
    let tag = tags.iter().flatten().next().copied().unwrap_or("-");
    if pair.1 > 10 {
        return format!("{}#{}", pair.0, tag);
    }
    format!("{}{}{}", pair.0, pair.1, tag)
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn first<'a>(words: &[&'a str]) -> Option<&'a str> {
    words.first().copied()
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"#[carve::system_test]
fn uses() {
    assert_eq!(contact::greet(Some("ada")), "hi ada");
    assert_eq!(contact::greet(None), "hello");
    assert_eq!(contact::join(&["a", "b"], "-"), "ab");
    assert_eq!(contact::longest(vec!["ab", "abc"]), 3);
    assert_eq!(contact::label(("x", 3), [None, Some("t")]), "x3t");
    assert_eq!(contact::first(&["p", "q"]), Some("p"));
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::first::0001 ... ok
    test carved::greet::0001 ... ok
    test carved::greet::0002 ... ok
    test carved::join::0001 ... ok
    test carved::label::0001 ... ok
    test carved::longest::0001 ... ok
    test system::uses ... ok
    "#);
    assert_snapshot!(p.read("carved/label.ron"), @r#"
    // Calls of `label` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "label",
        calls: [
            (
                origin: System("uses"),
                args: (
                    pair: ("x", 3),
                    tags: (None, Some("t")),
                ),
                outcome: Returned("x3t"),
            ),
        ],
    )
    "#);
    assert_snapshot!(p.read("carved/join.ron"), @r#"
    // Calls of `join` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "join",
        calls: [
            (
                origin: System("uses"),
                args: (
                    parts: [
                        "a",
                        "b",
                    ],
                    sep: "-",
                ),
                outcome: Returned("ab"),
            ),
        ],
    )
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());

    // Generation builds owned values and lends them: it reaches the
    // branches the system test left.
    let generate = p.test(&[("CARVE", "generate")], &[]);
    generate.assert_success();
    assert_snapshot!(generate.carve_lines(), @r#"
    carve: generating calls with seed 1 (CARVE_SEED) and budget 20000 executions per target (CARVE_BUDGET)
    carve: first: skipped: no branch outcomes in reach (mark the functions that hold its logic with `#[carve::instrument]`)
    carve: greet: branch coverage 3/5 -> 5/5; boundaries 1/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 315 executions (0 generated arguments did not deserialize)
    carve: join: branch coverage 1/2 -> 2/2; boundaries 1/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 867 executions (0 generated arguments did not deserialize)
    carve: label: branch coverage 1/2 -> 2/2; boundaries 0/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 1215 executions (0 generated arguments did not deserialize)
    carve: longest: skipped: no branch outcomes in reach (mark the functions that hold its logic with `#[carve::instrument]`)
    carve: wrote 2 new snapshot(s) for greet in carved/greet/
    carve: wrote 2 new snapshot(s) for join in carved/join/
    carve: wrote 2 new snapshot(s) for label in carved/label/
    carve: branch coverage of instrumented functions by carved and generated calls
      function  kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      first     target     -                     -              -     reach    -              (1 carved, 0 generated calls)
      greet     target     5/5    100.0%         1/1            5/5   reach    5/5    100.0%  (2 carved, 2 generated calls)
      join      target     2/2    100.0%         1/1            5/5   reach    2/2    100.0%  (1 carved, 2 generated calls)
      label     target     2/2    100.0%         1/1            5/5   reach    2/2    100.0%  (1 carved, 2 generated calls)
      longest   target     -                     -              -     reach    -              (1 carved, 0 generated calls)
      total                9/9    100.0%         3/3           15/15
    carve: hint: `first`, `longest` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();

    // A changed behaviour behind a lent parameter fails with a diff.
    p.replace(
        "src/lib.rs",
        "Some(name) => format!(\"hi {name}\")",
        "Some(name) => format!(\"hey {name}\")",
    );
    let changed = p.test(&[], &[]);
    changed.assert_failure();
    assert_snapshot!(changed.failed(), @r#"
    carved::greet::0001
    generated::greet::0001
    system::uses
    test result: FAILED. 10 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out; finished in [time]
    "#);
}

#[test]
fn a_trait_impl_for_an_unsized_type_is_carved_through_its_owned_twin() {
    let p = Project::of("contact", "contact-unsized");
    p.write(
        "src/lib.rs",
        r#"//! Extension traits implemented for `str` and `[u8]`, as `heck` does.

pub trait Shout {
    fn shout(&self) -> String;
}

#[cfg_attr(feature = "carve", carve::target)]
impl Shout for str {
    fn shout(&self) -> String {
        if self.is_empty() {
            return "!".to_owned();
        }
        self.to_uppercase()
    }
}

pub trait Checksum {
    fn checksum(&self) -> u8;
}

#[cfg_attr(feature = "carve", carve::target)]
impl Checksum for [u8] {
    fn checksum(&self) -> u8 {
        self.iter().fold(0, |a, b| a ^ b)
    }
}

/// A crate's own unsized type and the owned type that derefs to it, as
/// camino's `Utf8Path` and `Utf8PathBuf`.
#[repr(transparent)]
pub struct Name(str);

pub struct NameBuf(String);

impl Name {
    pub fn new(s: &str) -> &Name {
        // SAFETY: `Name` is a transparent `str`.
        unsafe { &*(s as *const str as *const Name) }
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl Name {
    pub fn initial(&self) -> char {
        match self.0.chars().next() {
            Some(c) => c.to_ascii_uppercase(),
            None => '?',
        }
    }

    /// A parameter of the type, as ascii's `AsciiStr::eq_ignore_ascii_case`.
    pub fn rhymes(&self, other: &Name) -> bool {
        self.0.len() > 1 && self.0.ends_with(&other.0[other.0.len().saturating_sub(2)..])
    }

    /// A `&mut self` of the type, as ascii's `AsciiStr::make_ascii_uppercase`.
    pub fn shout(&mut self) {
        self.0.make_ascii_uppercase()
    }
}

impl std::ops::Deref for NameBuf {
    type Target = Name;
    fn deref(&self) -> &Name {
        Name::new(&self.0)
    }
}

impl std::ops::DerefMut for NameBuf {
    fn deref_mut(&mut self) -> &mut Name {
        // SAFETY: `Name` is a transparent `str`.
        unsafe { &mut *(self.0.as_mut_str() as *mut str as *mut Name) }
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for NameBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for NameBuf {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<NameBuf, Self::Err> {
        Ok(NameBuf(s.to_owned()))
    }
}

// Without it, `initial` does not compile: carve would rebuild a `Name`.
#[cfg(feature = "carve")]
impl carve::Twin for Name {
    type Owned = NameBuf;
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"use contact::{Checksum, Name, NameBuf, Shout};

#[carve::system_test]
fn uses() {
    assert_eq!("hey".shout(), "HEY");
    assert_eq!([1u8, 3].checksum(), 2);
    assert_eq!(Name::new("ada").initial(), 'A');
    assert!(Name::new("ada").rhymes(Name::new("Linda")));
    let mut buf: NameBuf = "ada".parse().unwrap();
    Name::shout(&mut buf);
    assert_eq!(buf.to_string(), "ADA");
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(p.carved_names(), @r#"
    Name/initial.ron
    Name/initial/c635404444db.snap
    Name/rhymes.ron
    Name/rhymes/db3b76b06421.snap
    Name/shout.ron
    Name/shout/c635404444db.snap
    [u8]/Checksum/checksum.ron
    [u8]/Checksum/checksum/adff7716537c.snap
    str/Shout/shout.ron
    str/Shout/shout/8ba68c8ceede.snap
    "#);
    assert_snapshot!(p.read("carved/str/Shout/shout.ron"), @r#"
    // Calls of `str::Shout::shout` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "str::Shout::shout",
        calls: [
            (
                origin: System("uses"),
                args: (
                    self: "hey",
                ),
                outcome: Returned("HEY"),
            ),
        ],
    )
    "#);
    // A `&self` of the crate's own unsized type: rebuilt as its `Twin`.
    assert_snapshot!(p.read("carved/Name/initial.ron"), @r#"
    // Calls of `Name::initial` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "Name::initial",
        calls: [
            (
                origin: System("uses"),
                args: (
                    self: "ada",
                ),
                outcome: Returned('A'),
            ),
        ],
    )
    "#);
    // A parameter of that type, and a `&mut self` with its state after.
    assert_snapshot!(p.read("carved/Name/shout.ron"), @r#"
    // Calls of `Name::shout` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "Name::shout",
        calls: [
            (
                origin: System("uses"),
                args: (
                    self: "ada",
                ),
                outcome: Returned(()),
                after: (
                    self: "ADA",
                ),
            ),
        ],
    )
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
    let generate = p.test(&[("CARVE", "generate")], &[]);
    generate.assert_success();
    assert_snapshot!(generate.carve_lines(), @r#"
    carve: generating calls with seed 1 (CARVE_SEED) and budget 20000 executions per target (CARVE_BUDGET)
    carve: Name::initial: branch coverage 1/2 -> 2/2; kept 1 call(s), found 0 failure(s) in 273 executions (0 generated arguments did not deserialize)
    carve: Name::rhymes: branch coverage 2/4 -> 4/4; boundaries 0/1 -> 1/1; weak mutants killed 4/7 -> 6/7; kept 2 call(s), found 0 failure(s) in 557 executions (0 generated arguments did not deserialize)
    carve: Name::shout: skipped: no branch outcomes in reach (mark the functions that hold its logic with `#[carve::instrument]`)
    carve: [u8]::Checksum::checksum: skipped: no branch outcomes in reach (mark the functions that hold its logic with `#[carve::instrument]`)
    carve: str::Shout::shout: branch coverage 1/2 -> 2/2; weak mutants killed 1/1 -> 1/1; kept 1 call(s), found 0 failure(s) in 471 executions (0 generated arguments did not deserialize)
    carve: wrote 1 new snapshot(s) for Name::initial in carved/Name/initial/
    carve: wrote 2 new snapshot(s) for Name::rhymes in carved/Name/rhymes/
    carve: wrote 1 new snapshot(s) for str::Shout::shout in carved/str/Shout/shout/
    carve: branch coverage of instrumented functions by carved and generated calls
      function                  kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      Name::initial             target     2/2    100.0%         -               -    reach    2/2    100.0%  (1 carved, 1 generated calls)
      Name::rhymes              target     4/4    100.0%         1/1             6/7  reach    4/4    100.0%  (1 carved, 2 generated calls)
      Name::shout               target     -                     -               -    reach    -              (1 carved, 0 generated calls)
      [u8]::Checksum::checksum  target     -                     -               -    reach    -              (1 carved, 0 generated calls)
      str::Shout::shout         target     2/2    100.0%         -               1/1  reach    2/2    100.0%  (1 carved, 1 generated calls)
      total                                8/8    100.0%         1/1             7/8
    carve: hint: `Name::shout`, `[u8]::Checksum::checksum` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
    "#);
}

#[test]
fn a_static_reference_parameter_replays_with_a_value_that_lives_as_long() {
    let p = Project::of("contact", "contact-static");
    p.write(
        "src/lib.rs",
        r#"//! A parameter that must live for the whole program, as
//! percent-encoding's `utf8_percent_encode(input, &'static AsciiSet)`.

#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Set {
    pub bytes: Vec<u8>,
}

pub static SPACE: Set = Set { bytes: Vec::new() };

#[cfg_attr(feature = "carve", carve::target)]
pub fn escape(input: &str, set: &'static Set) -> String {
    input
        .bytes()
        .map(|b| if set.bytes.contains(&b) { format!("%{b:02X}") } else { (b as char).to_string() })
        .collect()
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"#[carve::system_test]
fn escapes() {
    let set: &'static contact::Set = Box::leak(Box::new(contact::Set { bytes: vec![b' '] }));
    assert_eq!(contact::escape("a b", set), "a%20b");
    assert_eq!(contact::escape("a b", &contact::SPACE), "a b");
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::escape::0001 ... ok
    test carved::escape::0002 ... ok
    test system::escapes ... ok
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
}

#[test]
fn a_method_returning_a_reborrow_of_mut_self_compiles_and_replays() {
    let p = Project::of("contact", "contact-reborrow");
    p.write(
        "src/lib.rs",
        r#"//! `&mut self` handed back as a slice, as arrayvec's `as_mut_slice`.

#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Buf {
    bytes: Vec<u8>,
}

#[cfg_attr(feature = "carve", carve::target)]
impl Buf {
    pub fn new(bytes: Vec<u8>) -> Buf {
        Buf { bytes }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.bytes.is_empty() {
            return &mut [];
        }
        self.tail()
    }

    #[cfg_attr(feature = "carve", carve::instrument)]
    fn tail(&mut self) -> &mut [u8] {
        if self.bytes.len() > 1 {
            return &mut self.bytes[1..];
        }
        &mut self.bytes
    }
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"#[carve::system_test]
fn slices() {
    let mut buf = contact::Buf::new(vec![1, 2]);
    buf.as_mut_slice()[0] = 9;
    assert_eq!(buf.as_mut_slice(), &[9]);
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::Buf::as_mut_slice::0001 ... ok
    test carved::Buf::as_mut_slice::0002 ... ok
    test carved::Buf::new::0001 ... ok
    test system::slices ... ok
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
}

/// An operator implemented on references (fixedbitset's `impl BitAnd for
/// &FixedBitSet`, num-rational's `impl<'a, T> Add for &'a Ratio<T>`): its
/// `self` is carved as a `&self` of the type (the reference's lifetime is
/// no part of the value carved), and its target is named apart from the same
/// trait's impl for the type itself, at its instantiation.
#[test]
fn an_operator_on_references_records_and_replays() {
    let p = Project::of("contact", "contact-ref-ops");
    p.write(
        "src/lib.rs",
        r#"//! Bit sets combined by reference and by value.
use std::ops::BitAnd;

#[derive(Debug, Clone)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Bits(pub u8);

#[cfg_attr(feature = "carve", carve::target)]
impl BitAnd for &Bits {
    type Output = Bits;
    fn bitand(self, other: &Bits) -> Bits {
        if self.0 == 0 {
            return Bits(0);
        }
        Bits(self.0 & other.0)
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl BitAnd for Bits {
    type Output = Bits;
    fn bitand(self, other: Bits) -> Bits {
        &self & &other
    }
}

#[derive(Debug, Clone)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Pair<T>(pub T, pub T);

/// Generic, with the lifetimes of its references named, as a macro
/// writes num-rational's.
#[cfg_attr(feature = "carve", carve::target(generics(T = u8)))]
impl<'a, 'b, T: Clone> BitAnd<&'b Pair<T>> for &'a Pair<T> {
    type Output = Pair<T>;
    fn bitand(self, other: &'b Pair<T>) -> Pair<T> {
        Pair(self.0.clone(), other.1.clone())
    }
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"use contact::{Bits, Pair};

#[carve::system_test]
fn combines() {
    assert_eq!((&Bits(6) & &Bits(3)).0, 2);
    assert_eq!((Bits(0) & Bits(3)).0, 0);
    assert_eq!((&Pair(1u8, 2) & &Pair(3, 4)).1, 4);
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::&Bits::BitAnd::bitand::0001 ... ok
    test carved::&Bits::BitAnd::bitand::0002 ... ok
    test carved::&Pair<u8>::BitAnd<&Pair<u8>>::bitand::0001 ... ok
    test carved::Bits::BitAnd::bitand::0001 ... ok
    test system::combines ... ok
    "#);
    let files: Vec<String> = p
        .carved()
        .into_keys()
        .filter(|f| f.ends_with(".ron"))
        .collect();
    assert_snapshot!(files.join("\n"), @r#"
    &Bits/BitAnd/bitand.ron
    &Pair(u8)/BitAnd(&Pair(u8))/bitand.ron
    Bits/BitAnd/bitand.ron
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
}

/// A type that serializes as itself and deserializes through a checked
/// twin of another name (bit-vec 0.10.2's `BitVec` through its
/// `UncheckedBitVec`; serde's `try_from`): ron refuses `Bits(…)` for an
/// `UncheckedBits`, so no call of its methods was carved; it is read as if
/// written unnamed, and its own checks still apply.
#[test]
fn a_type_read_through_a_checked_twin_records_replays_and_generates() {
    let p = Project::of("contact", "contact-twin-name");
    p.write(
        "src/lib.rs",
        r#"//! Bits whose count is checked when they are read.

#[cfg_attr(feature = "carve", derive(serde::Deserialize))]
#[cfg_attr(feature = "carve", serde(rename = "UncheckedBits"))]
pub struct Unchecked {
    count: u8,
}

#[derive(Debug)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "carve", serde(try_from = "Unchecked"))]
pub struct Bits {
    count: u8,
}

impl TryFrom<Unchecked> for Bits {
    type Error = String;
    fn try_from(u: Unchecked) -> Result<Bits, String> {
        match u.count <= 8 {
            true => Ok(Bits { count: u.count }),
            false => Err(format!("{} bits do not fit a byte", u.count)),
        }
    }
}

#[cfg_attr(feature = "carve", carve::target)]
impl Bits {
    pub fn new(count: u8) -> Bits {
        Bits { count: count.min(8) }
    }

    pub fn is_full(&self) -> bool {
        if self.count == 8 {
            return true;
        }
        false
    }
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"use contact::Bits;

#[carve::system_test]
fn counts() {
    assert!(!Bits::new(3).is_full());
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.results(), @r#"
    test carved::Bits::is_full::0001 ... ok
    test carved::Bits::new::0001 ... ok
    test system::counts ... ok
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
    // Generated `self` values are read the same way; those over 8 bits do
    // not deserialize.
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "300")], &[]);
    generate.assert_success();
    assert_snapshot!(generate.generation_line("Bits::is_full"), @"carve: Bits::is_full: branch coverage 1/2 -> 2/2; boundaries 0/2 -> 1/2; weak mutants killed 3/5 -> 4/5; kept 2 call(s), found 0 failure(s) in 115 executions (88 generated arguments did not deserialize)");
}

/// A call whose outcome changes from run to run with the same arguments
/// (unicode-segmentation's `GraphemeIndices` shows an address in its
/// `Debug`; here a counter other code moved) cannot be checked: recording
/// says so, instead of blaming the carve file.
#[test]
fn an_outcome_that_depends_on_more_than_the_arguments_is_named_as_such() {
    let p = Project::of("contact", "contact-unstable");
    p.write(
        "src/lib.rs",
        r#"//! A ticket counter: what `ticket` returns depends on earlier calls.

use std::sync::atomic::{AtomicU32, Ordering};

static ISSUED: AtomicU32 = AtomicU32::new(0);

pub fn open_window() {
    ISSUED.fetch_add(5, Ordering::Relaxed);
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn ticket(name: &str) -> String {
    let n = ISSUED.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{name}#{n}")
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"#[carve::system_test]
fn issues() {
    contact::open_window();
    assert_eq!(contact::ticket("ada"), "ada#6");
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_failure();
    assert_snapshot!(record.failure("carved::ticket::0001"), @r#"carved/ticket.ron:13:22: replaying `ticket` with the arguments carved for it gave `Returned("ada#1")`, not the outcome carved with them (`Returned("ada#6")`): what it returns depends on more than its arguments as carved (an address, the time, a random value, global state, or state an argument's carved form leaves out, as a capacity), so no snapshot can check it (its new snapshot carved/ticket/0b8cd3be53a6.snap holds this run's outcome, and the next run will differ again). Make what it returns the same on every run (a `Debug` that shows no address, a `Serialize` that keeps that state), or leave it out: remove its `#[carve::target]` (in a block with none marked, mark it `#[carve::instrument]`). (If the carve file was edited by hand, record again.)"#);
}
