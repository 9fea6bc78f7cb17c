//! Strong mutation checks: a call that weakly kills a mutant (the mutated
//! condition would differ) is kept for it only if its outcome changes under
//! the mutant too, and a mutant that loops forever is killed.

use crate::Project;

/// `x` to the power `y` by squaring. Its second `exp > 0` meets `exp == 0`
/// on every call, so every call weakly kills `exp >= 0` there; only a base
/// whose square overflows while the result does not changes the outcome.
/// The loop's `exp > 0` as `exp >= 0` never ends.
const POWER_TARGET: &str = r#"
/// `x` to the power `y`; `None` on overflow (its name is matched by the
/// test's filter `power_of`).
#[cfg_attr(feature = "carve", carve::target)]
pub fn power_of(x: i64, y: u32) -> Option<i64> {
    let mut result: i64 = 1;
    let mut base = x;
    let mut exp = y;
    while exp > 0 {
        if exp % 2 == 1 {
            result = result.checked_mul(base)?;
        }
        exp /= 2;
        if exp > 0 {
            base = base.checked_mul(base)?;
        }
    }
    Some(result)
}
"#;

const POWER_TEST: &str = r#"
#[carve::system_test]
fn raises_to_powers() {
    assert_eq!(shop::power_of(1, 2), Some(1));
    assert_eq!(shop::power_of(3, 4), Some(81));
    assert_eq!(shop::power_of(2, 63), None);
}

carve::main!();
"#;

/// `power_of` with its second `exp > 0` as `exp >= 0`.
fn mutated_power(x: i64, y: u32) -> Option<i64> {
    let (mut result, mut base, mut exp) = (1i64, x, y);
    while exp > 0 {
        if exp % 2 == 1 {
            result = result.checked_mul(base)?;
        }
        exp /= 2;
        base = base.checked_mul(base)?;
    }
    Some(result)
}

/// `power_of` as written.
fn power(x: i64, y: u32) -> Option<i64> {
    let (mut result, mut base, mut exp) = (1i64, x, y);
    while exp > 0 {
        if exp % 2 == 1 {
            result = result.checked_mul(base)?;
        }
        exp /= 2;
        if exp > 0 {
            base = base.checked_mul(base)?;
        }
    }
    Some(result)
}

#[test]
fn a_mutant_every_call_kills_weakly_gets_a_call_whose_outcome_it_changes() {
    let p = Project::new("mutants");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}{POWER_TARGET}"));
    p.replace("tests/carve.rs", "carve::main!();", POWER_TEST);
    p.record().assert_success();
    let line = p
        .read("src/lib.rs")
        .lines()
        .position(|l| l.trim() == "if exp > 0 {")
        .expect("the second condition")
        + 1;
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "5000")],
        &["power_of"],
    );
    run.assert_success();
    let generated = run.generation_line("power_of");
    // Checking `while exp >= 0` (it never returns) ran out of fuel
    // (`coverage::MUTANT_FUEL`): the mutant is killed, no worker hung, and
    // nothing is reported as a failure of the target, nor as a crash.
    assert!(generated.contains("found 0 failure(s)"), "{generated}");
    assert!(
        !generated.contains("hung or crashed a worker"),
        "{generated}"
    );
    assert!(
        !generated.contains("worker crash(es) survived"),
        "{generated}"
    );
    let file = p.read("carved/power_of.ron");
    assert!(!file.contains("Found("), "{file}");
    let wanted = format!("src/lib.rs:{line}:12 `>` → `>=` in `exp > 0`");
    let entry = file
        .split("origin: ")
        .find(|e| e.contains(&wanted))
        .unwrap_or_else(|| panic!("a call kept for {wanted}:\n{file}"));
    let number = |name: &str| -> i64 {
        let at = entry.find(&format!("{name}: ")).expect(name) + name.len() + 2;
        entry[at..]
            .split(',')
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {entry}"))
    };
    let (x, y) = (number("x"), u32::try_from(number("y")).expect("a u32"));
    assert_ne!(
        power(x, y),
        mutated_power(x, y),
        "power_of({x}, {y}) tells the mutant apart:\n{entry}"
    );
}

/// An arithmetic operation and a `match` whose first arm the system test
/// never takes: `x * 2` is `x + 2` at the one value the test uses.
const OPERATIONS_TARGET: &str = r#"
/// Twice `x`, plus one.
#[cfg_attr(feature = "carve", carve::target)]
pub fn twice_plus_one(x: u32) -> u32 {
    if x > 1000 {
        return 0;
    }
    x * 2 + 1
}

/// Milliseconds in a unit.
#[cfg_attr(feature = "carve", carve::target)]
pub fn unit_millis(unit: &str) -> u32 {
    match unit {
        "ms" => 1,
        "s" => 1000,
        _ => 0,
    }
}
"#;

const OPERATIONS_TEST: &str = r#"
#[carve::system_test]
fn doubles_and_converts() {
    assert_eq!(shop::twice_plus_one(2), 5);
    assert_eq!(shop::twice_plus_one(5000), 0);
    assert_eq!(shop::unit_millis("s"), 1000);
    assert_eq!(shop::unit_millis("h"), 0);
}

carve::main!();
"#;

#[test]
fn generation_keeps_calls_for_arithmetic_and_match_arm_mutants_the_carved_calls_survive() {
    let p = Project::new("operations");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}{OPERATIONS_TARGET}"));
    p.replace("tests/carve.rs", "carve::main!();", OPERATIONS_TEST);
    p.record().assert_success();
    let line = p
        .read("src/lib.rs")
        .lines()
        .position(|l| l.trim() == "x * 2 + 1")
        .expect("the operation")
        + 1;
    // The carved calls kill `*` → `/` (2 / 2 is 1) and `+` → `-`, not
    // `*` → `+` (2 + 2 is 2 * 2); nor does any delete the `"ms"` arm.
    let run = p.test(
        &[("CARVE", "generate"), ("CARVE_BUDGET", "5000")],
        &["twice_plus_one", "unit_millis"],
    );
    run.assert_success();
    let file = p.read("carved/twice_plus_one.ron");
    let wanted = format!("src/lib.rs:{line}:5 `*` → `+` in `x * 2`");
    let entry = file
        .split("origin: ")
        .find(|e| e.contains(&wanted))
        .unwrap_or_else(|| panic!("a call kept for {wanted}:\n{file}"));
    let at = entry.find("x: ").expect("x") + 3;
    let x: u32 = entry[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("x in {entry}"));
    assert_ne!(
        x * 2,
        x + 2,
        "twice_plus_one({x}) tells `*` from `+`:\n{entry}"
    );
    let file = p.read("carved/unit_millis.ron");
    let entry = file
        .split("origin: ")
        .find(|e| e.contains(r#"match arm `\"ms\"` deleted"#))
        .unwrap_or_else(|| panic!("a call kept for the `\"ms\"` arm:\n{file}"));
    assert!(entry.contains(r#"unit: "ms""#), "{entry}");
}

/// Roman numerals as the published crate `roman` 0.1.6 reads them: the
/// lax reading adds a letter's value, or subtracts it when a larger letter
/// follows, and the round trip through `to_numeral` rejects what is not
/// written the canonical way. `val < max` as `val <= max` changes the lax
/// value of every text that repeats its largest letter so far (`"IIII"`),
/// but the outcome only where that text is canonical (`"XX"`: 20, mutant
/// `None`); on `"XVVVVVV"` both are `None`.
const ROMAN_TARGET: &str = r#"
static LETTERS: &[(char, i32)] = &[('I', 1), ('V', 5), ('X', 10), ('L', 50), ('C', 100), ('D', 500), ('M', 1000)];
static PAIRS: &[(&str, i32)] = &[
    ("M", 1000), ("CM", 900), ("D", 500), ("CD", 400), ("C", 100), ("XC", 90), ("L", 50),
    ("XL", 40), ("X", 10), ("IX", 9), ("V", 5), ("IV", 4), ("I", 1),
];

/// `n` as a roman numeral, for 1 to 3999.
#[cfg_attr(feature = "carve", carve::target)]
pub fn to_numeral(n: i32) -> Option<String> {
    if n <= 0 || n > 3999 { return None }
    let mut out = String::new();
    let mut n = n;
    for &(name, value) in PAIRS.iter() {
        while n >= value {
            n -= value;
            out.push_str(name);
        }
    }
    Some(out)
}

/// The number a canonical roman numeral stands for.
#[cfg_attr(feature = "carve", carve::target)]
pub fn from_numeral(txt: &str) -> Option<i32> {
    let n = match lax_numeral(txt) {
        Some(n) => n,
        None => return None,
    };
    match to_numeral(n) {
        Some(ref x) if *x == txt => Some(n),
        _ => None,
    }
}

#[cfg_attr(feature = "carve", carve::instrument)]
fn lax_numeral(txt: &str) -> Option<i32> {
    let (mut n, mut max) = (0, 0);
    for c in txt.chars().rev() {
        // As the crate writes it (the same branches to generate for).
        let it = LETTERS.iter().find(|x| { let &(ch, _) = *x; ch == c });
        if it.is_none() { return None }
        let &(_, val) = it.unwrap();
        if val < max {
            n -= val;
        } else {
            n += val;
            max = val;
        }
    }
    Some(n)
}
"#;

const ROMAN_TEST: &str = r#"
#[carve::system_test]
fn converts_numerals() {
    assert_eq!(shop::to_numeral(14).as_deref(), Some("XIV"));
    assert_eq!(shop::from_numeral("XIV"), Some(14));
    assert_eq!(shop::from_numeral("IIII"), None);
    assert_eq!(shop::from_numeral("i"), None);
}

carve::main!();
"#;

/// `from_numeral`, with `val < max` as `val <= max` when `mutated`.
fn from_numeral(txt: &str, mutated: bool) -> Option<i32> {
    let value = |c| match c {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        'D' => Some(500),
        'M' => Some(1000),
        _ => None,
    };
    let (mut n, mut max) = (0, 0);
    for c in txt.chars().rev() {
        let val = value(c)?;
        if val < max || (mutated && val == max) {
            n -= val;
        } else {
            n += val;
            max = val;
        }
    }
    let pairs = [
        ("M", 1000),
        ("CM", 900),
        ("D", 500),
        ("CD", 400),
        ("C", 100),
        ("XC", 90),
        ("L", 50),
        ("XL", 40),
        ("X", 10),
        ("IX", 9),
        ("V", 5),
        ("IV", 4),
        ("I", 1),
    ];
    if !(1..=3999).contains(&n) {
        return None;
    }
    let (mut rest, mut canonical) = (n, String::new());
    for (name, v) in pairs {
        while rest >= v {
            rest -= v;
            canonical.push_str(name);
        }
    }
    (canonical == txt).then_some(n)
}

#[test]
fn a_call_minimized_for_one_goal_names_only_the_mutants_it_was_checked_against() {
    let p = Project::new("roman-mutants");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}{ROMAN_TARGET}"));
    p.replace("tests/carve.rs", "carve::main!();", ROMAN_TEST);
    let line = p
        .read("src/lib.rs")
        .lines()
        .position(|l| l.trim() == "if val < max {")
        .expect("the comparison")
        + 1;
    let mutant = format!("src/lib.rs:{line}:12 `<` → `<=` in `val < max` in lax_numeral");
    // Seed 2 kept `"XVVVVVV"` for `*x == txt` and, minimizing it, named the
    // weakly killed `<=` mutant too, which it does not kill: the mutant was
    // no longer aimed at. Each of these seeds keeps a call that kills it.
    // (Seed 2 no longer does since the texts of `PAIRS` joined the
    // dictionary: its run kills another mutant instead, 24/28 as every seed,
    // and ends on a plateau; seeds 1 and 3 to 8 kill this one.)
    for seed in ["1", "3", "4"] {
        let dir = p.dir.join(format!("carved-{seed}"));
        let dir = dir.to_str().expect("a UTF-8 path");
        p.test(&[("CARVE", "record"), ("CARVE_DIR", dir)], &[])
            .assert_success();
        p.test(
            &[
                ("CARVE", "generate"),
                ("CARVE_DIR", dir),
                ("CARVE_SEED", seed),
            ],
            &["from_numeral"],
        )
        .assert_success();
        let file = p.read(&format!("carved-{seed}/from_numeral.ron"));
        let mut checked = 0;
        for entry in file.split("origin: ").filter(|e| e.contains(&mutant)) {
            let at = entry.find("txt: \"").expect("txt") + 6;
            let txt = &entry[at..at + entry[at..].find('"').expect("a closing quote")];
            assert_ne!(
                from_numeral(txt, false),
                from_numeral(txt, true),
                "seed {seed}: from_numeral({txt:?}) is kept for {mutant} but does not kill it:\n{entry}"
            );
            checked += 1;
        }
        // Seed 1 spent its 32 strong checks on the carved `"IIII"`, which
        // search made again and again: a call made again is checked once.
        assert!(
            checked > 0,
            "seed {seed} kept no call for {mutant}:\n{file}"
        );
    }
}
