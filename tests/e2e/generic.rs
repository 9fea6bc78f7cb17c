//! Generic targets, on their fixture (`generic/`): a parser of any text
//! carved at two instantiations (`String`, `&str`), a sum of an `impl
//! IntoIterator`, the methods of a generic stack (one with a type
//! parameter of its own) and a generic trait impl, each instantiation its
//! own target; calls at an instantiation not listed are said once.

use insta::assert_snapshot;

use crate::Project;

#[test]
fn each_listed_instantiation_is_carved_replayed_and_generated_for() {
    let p = Project::of("generic", "generic-record");
    let run = p.record();
    run.assert_success();
    assert_snapshot!(run.messages(), @r"
    carve: carved 4 system test(s); writing carved
    carve: wrote carved/Stack(u8)/count_at_most(u8).ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Stack(u8)/peek.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Stack(u8)/push.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Total/From(Vec(u16))/from.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Total/From(Vec(u8))/from.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/capped_total(Vec(u32)).ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/setting(&str).ron: 2 call(s) stored, 2 carved in this run
    carve: wrote carved/setting(String).ron: 1 call(s) stored, 1 carved in this run
    carve: wrote 1 new snapshot(s) for Stack<u8>::count_at_most<u8> in carved/Stack(u8)/count_at_most(u8)/
    carve: wrote 1 new snapshot(s) for Stack<u8>::peek in carved/Stack(u8)/peek/
    carve: wrote 1 new snapshot(s) for Stack<u8>::push in carved/Stack(u8)/push/
    carve: wrote 1 new snapshot(s) for Total::From<Vec<u16>>::from in carved/Total/From(Vec(u16))/from/
    carve: wrote 1 new snapshot(s) for Total::From<Vec<u8>>::from in carved/Total/From(Vec(u8))/from/
    carve: wrote 1 new snapshot(s) for capped_total<Vec<u32>> in carved/capped_total(Vec(u32))/
    carve: wrote 2 new snapshot(s) for setting<&str> in carved/setting(&str)/
    carve: wrote 1 new snapshot(s) for setting<String> in carved/setting(String)/
    carve: not carving calls of `capped_total` at `items = [u32; 2]`, an instantiation its attribute does not list (first seen in system test `totals_items`; 1 call(s)). Add `generics(items = [u32; 2])` to its `#[carve::target(…)]` to carve them.
    carve: not carving calls of `setting` at `S = Cow<str>`, an instantiation its attribute does not list (first seen in system test `reads_settings`; 1 call(s)). Add `generics(S = Cow<str>)` to its `#[carve::target(…)]` to carve them.
    ");
    assert_snapshot!(p.carved_names(), @r"
    Stack(u8)/count_at_most(u8).ron
    Stack(u8)/count_at_most(u8)/2d1d206f9081.snap
    Stack(u8)/peek.ron
    Stack(u8)/peek/dec9a37e6b5a.snap
    Stack(u8)/push.ron
    Stack(u8)/push/6dfac36d4769.snap
    Total/From(Vec(u16))/from.ron
    Total/From(Vec(u16))/from/8e5adb630979.snap
    Total/From(Vec(u8))/from.ron
    Total/From(Vec(u8))/from/27f7f4605548.snap
    capped_total(Vec(u32)).ron
    capped_total(Vec(u32))/4999d267fabe.snap
    setting(&str).ron
    setting(&str)/8fb10e290c12.snap
    setting(&str)/f5173d319da3.snap
    setting(String).ron
    setting(String)/17ff6426e208.snap
    ");
    assert_snapshot!(p.read("carved/setting(&str).ron"), @r##"
    // Calls of `setting<&str>` carved by carve. `cargo test` replays each one as a unit
    // test and checks its outcome against its snapshot, in the folder beside
    // this file; `CARVE=record cargo test` rewrites the entries that came from
    // system tests.
    (
        target: "setting<&str>",
        calls: [
            (
                origin: System("reads_settings"),
                args: (
                    line: "# comment",
                ),
                outcome: Returned(None),
            ),
            (
                origin: System("reads_settings"),
                args: (
                    line: "width=5000",
                ),
                outcome: Returned(Some(("width", 1000))),
            ),
        ],
    )
    "##);
    assert_snapshot!(run.results(), @r"
    test carved::Stack<u8>::count_at_most<u8>::0001 ... ok
    test carved::Stack<u8>::peek::0001 ... ok
    test carved::Stack<u8>::push::0001 ... ok
    test carved::Total::From<Vec<u16>>::from::0001 ... ok
    test carved::Total::From<Vec<u8>>::from::0001 ... ok
    test carved::capped_total<Vec<u32>>::0001 ... ok
    test carved::setting<&str>::0001 ... ok
    test carved::setting<&str>::0002 ... ok
    test carved::setting<String>::0001 ... ok
    test system::reads_settings ... ok
    test system::stacks_bytes ... ok
    test system::totals_items ... ok
    test system::totals_small_numbers ... ok
    ");

    // Replayed as they were carved, each at its instantiation.
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_snapshot!(replay.results(), @r"
    test carved::Stack<u8>::count_at_most<u8>::0001 ... ok
    test carved::Stack<u8>::peek::0001 ... ok
    test carved::Stack<u8>::push::0001 ... ok
    test carved::Total::From<Vec<u16>>::from::0001 ... ok
    test carved::Total::From<Vec<u8>>::from::0001 ... ok
    test carved::capped_total<Vec<u32>>::0001 ... ok
    test carved::setting<&str>::0001 ... ok
    test carved::setting<&str>::0002 ... ok
    test carved::setting<String>::0001 ... ok
    test system::reads_settings ... ok
    test system::stacks_bytes ... ok
    test system::totals_items ... ok
    test system::totals_small_numbers ... ok
    ");

    // `Stack` has a private field: its receivers are stacks the API made
    // (sealed structs), also by the run's own pushes.
    // The instantiations of one generic function share its outcomes: one
    // explores them (`setting<&str>`, `Total::From<Vec<u16>>::from`), the
    // other stops once its own turns stop paying (one exploration per reach).
    let generate = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "500")], &[]);
    generate.assert_success();
    let lines: Vec<&str> = generate
        .stdout
        .lines()
        .filter(|l| l.contains(": branch coverage "))
        .collect();
    assert_snapshot!(lines.join("\n"), @r"
    carve: Stack<u8>::count_at_most<u8>: branch coverage 1/2 -> 2/2; boundaries 0/1 -> 1/1; weak mutants killed 3/5 -> 5/5; kept 2 call(s), found 0 failure(s) in 43 executions (0 generated arguments did not deserialize)
    carve: Stack<u8>::push: branch coverage 1/2 -> 2/2; boundaries 0/1 -> 1/1; weak mutants killed 3/5 -> 4/5; kept 1 call(s), found 0 failure(s) in 500 executions (0 generated arguments did not deserialize)
    carve: Total::From<Vec<u16>>::from: branch coverage 4/4 -> 4/4; boundaries 0/1 -> 1/1; weak mutants killed 4/5 -> 5/5; kept 1 call(s), found 0 failure(s) in 500 executions (0 generated arguments did not deserialize)
    carve: Total::From<Vec<u8>>::from: branch coverage 4/4 -> 4/4; boundaries 0/1 -> 1/1; weak mutants killed 4/5 -> 5/5; kept 1 call(s), found 0 failure(s) in 44 executions (0 generated arguments did not deserialize)
    carve: capped_total<Vec<u32>>: branch coverage 4/4 -> 4/4; boundaries 0/1 -> 1/1; weak mutants killed 4/5 -> 5/5; kept 1 call(s), found 0 failure(s) in 500 executions (0 generated arguments did not deserialize)
    carve: setting<&str>: branch coverage 7/9 -> 9/9; boundaries 0/1 -> 1/1; weak mutants killed 6/7 -> 7/7; kept 3 call(s), found 0 failure(s) in 500 executions (0 generated arguments did not deserialize)
    carve: setting<String>: branch coverage 7/9 -> 9/9; boundaries 0/1 -> 0/1; weak mutants killed 6/7 -> 6/7; kept 2 call(s), found 0 failure(s) in 78 executions (0 generated arguments did not deserialize)
    carve: branch coverage of instrumented functions by carved and generated calls
    ");
    // What generation kept replays.
    p.test(&[], &[]).assert_success();
}

/// An impl block or a function with const generics (wildmatch's
/// `impl<const MULTI: char, const SINGLE: char> WildMatchPattern<MULTI, SINGLE>`)
/// is carved at the values its attribute names; a call at other values is
/// not carved, and the record run says so.
#[test]
fn an_impl_block_with_const_generics_is_carved_at_the_listed_values() {
    let p = Project::of("generic", "generic-const");
    p.write(
        "src/lib.rs",
        r#"//! A pattern type generic over its wildcard character and a length.

#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Pattern<const WILD: char, const N: usize> {
    text: String,
}

#[cfg_attr(feature = "carve", carve::target(generics(WILD = '*', N = 2), generics(WILD = '%', N = { 1 + 2 })))]
impl<const WILD: char, const N: usize> Pattern<WILD, N> {
    pub fn new(text: &str) -> Self {
        Pattern { text: text.to_owned() }
    }

    pub fn matches(&self, input: &str) -> bool {
        if self.text.starts_with(WILD) {
            return input.ends_with(&self.text[WILD.len_utf8()..]);
        }
        self.text == input
    }

    pub fn widths(&self, lengths: [u8; N]) -> usize {
        lengths.iter().filter(|l| usize::from(**l) > self.text.len()).count()
    }
}

#[cfg_attr(feature = "carve", carve::target(generics(N = 2)))]
pub fn firsts<const N: usize>(text: &str) -> [Option<char>; N] {
    let mut chars = text.chars();
    std::array::from_fn(|_| chars.next())
}
"#,
    );
    p.write(
        "tests/carve.rs",
        r#"use generic::Pattern;

#[carve::system_test]
fn matches() {
    assert!(Pattern::<'*', 2>::new("*ab").matches("xab"));
    assert!(!Pattern::<'%', 3>::new("ab").matches("xab"));
    assert_eq!(Pattern::<'*', 2>::new("a").widths([1, 3]), 1);
    assert!(Pattern::<'~', 2>::new("~b").matches("ab"));
    assert_eq!(generic::firsts::<2>("a"), [Some('a'), None]);
}

carve::main!();
"#,
    );
    let record = p.record();
    record.assert_success();
    assert_snapshot!(record.carve_lines(), @r#"
    carve: carved 1 system test(s); writing carved
    carve: wrote carved/Pattern('%', { 1 + 2 })/matches.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Pattern('%', { 1 + 2 })/new.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Pattern('U+002A', 2)/matches.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/Pattern('U+002A', 2)/new.ron: 2 call(s) stored, 2 carved in this run
    carve: wrote carved/Pattern('U+002A', 2)/widths.ron: 1 call(s) stored, 1 carved in this run
    carve: wrote carved/firsts(2).ron: 1 call(s) stored, 1 carved in this run
    carve: wrote 1 new snapshot(s) for Pattern<'%', { 1 + 2 }>::matches in carved/Pattern('%', { 1 + 2 })/matches/
    carve: wrote 1 new snapshot(s) for Pattern<'%', { 1 + 2 }>::new in carved/Pattern('%', { 1 + 2 })/new/
    carve: wrote 1 new snapshot(s) for Pattern<'*', 2>::matches in carved/Pattern('U+002A', 2)/matches/
    carve: wrote 2 new snapshot(s) for Pattern<'*', 2>::new in carved/Pattern('U+002A', 2)/new/
    carve: wrote 1 new snapshot(s) for Pattern<'*', 2>::widths in carved/Pattern('U+002A', 2)/widths/
    carve: wrote 1 new snapshot(s) for firsts<2> in carved/firsts(2)/
    carve: branch coverage of instrumented functions by carved and generated calls
      function          kind    own outcomes      boundaries  mutants killed  targets: outcomes of all they reach
      Pattern::matches  target     2/2    100.0%         -               1/1  reach    2/2    100.0%  (1 carved, 0 generated calls)
      Pattern::new      target     -                     -               -    reach    -              (1 carved, 0 generated calls)
      Pattern::widths   target     -                     -               -    reach    -              (1 carved, 0 generated calls)
      firsts            target     -                     -               -    reach    -              (1 carved, 0 generated calls)
      total                        2/2    100.0%         -               1/1
    carve: hint: `Pattern<'%', { 1 + 2 }>::new`, `Pattern<'*', 2>::widths`, `firsts<2>` have no branch outcomes and reach no instrumented function; if the logic is in functions they call, mark those with `#[carve::instrument]` (on an inline `mod`, it instruments every function in it)
    carve: not carving calls of `Pattern::matches` at `WILD = '~', N = 2`, an instantiation its attribute does not list (first seen in system test `matches`; 1 call(s)). Add `generics(WILD = '~', N = 2)` to its `#[carve::target(…)]` to carve them.
    carve: not carving calls of `Pattern::new` at `WILD = '~', N = 2`, an instantiation its attribute does not list (first seen in system test `matches`; 1 call(s)). Add `generics(WILD = '~', N = 2)` to its `#[carve::target(…)]` to carve them.
    "#);
    assert_snapshot!(p.carved_names(), @r#"
    Pattern('%', { 1 + 2 })/matches.ron
    Pattern('%', { 1 + 2 })/matches/9ddbec484d0c.snap
    Pattern('%', { 1 + 2 })/new.ron
    Pattern('%', { 1 + 2 })/new/a0ad446f30fd.snap
    Pattern('U+002A', 2)/matches.ron
    Pattern('U+002A', 2)/matches/5d4167e41ad5.snap
    Pattern('U+002A', 2)/new.ron
    Pattern('U+002A', 2)/new/30180d308412.snap
    Pattern('U+002A', 2)/new/f8a685e5f59a.snap
    Pattern('U+002A', 2)/widths.ron
    Pattern('U+002A', 2)/widths/3d04295b5acc.snap
    firsts(2).ron
    firsts(2)/30180d308412.snap
    "#);
    let replay = p.test(&[], &[]);
    replay.assert_success();
    assert_eq!(replay.results(), record.results());
}
