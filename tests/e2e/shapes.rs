//! Type-shaped generation: generated arguments are values of the
//! parameter types, traced from their `Deserialize` impls, so enum variants
//! no carved call used are generated too and almost no argument fails to
//! deserialize.

use crate::Project;

/// A target taking a struct with an enum, a `u32`, an option and a `u8`,
/// whose one carved call takes the `Ground` variant.
const PARCELS: &str = r#"
/// How a parcel travels.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub enum Route {
    Ground { days: u8 },
    Air(u16),
    Sea,
}

/// A parcel.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub struct Parcel {
    pub grams: u32,
    pub route: Route,
    pub insured: Option<bool>,
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn cost(parcel: &Parcel, count: u8) -> u64 {
    let base = u64::from(parcel.grams) * u64::from(count);
    let base = if parcel.insured == Some(true) { base + 100 } else { base };
    match parcel.route {
        Route::Ground { days } if days > 3 => base,
        Route::Ground { .. } => base * 2,
        Route::Air(speed) if speed > 500 => base * 4,
        Route::Air(_) => base * 3,
        Route::Sea => base / 2,
    }
}
"#;

const SYSTEM_TEST: &str = r#"
#[carve::system_test]
fn ships_parcels() {
    let parcel = types::Parcel {
        grams: 1200,
        route: types::Route::Ground { days: 2 },
        insured: None,
    };
    assert_eq!(types::cost(&parcel, 3), 7200);
}

carve::main!();"#;

/// `(executions, undeserializable)` of `target`'s generation line.
fn counts(output: &str, target: &str) -> (u64, u64) {
    let line = output
        .lines()
        .find(|l| l.starts_with(&format!("carve: {target}: branch coverage")))
        .unwrap_or_else(|| panic!("no generation line of {target} in:\n{output}"));
    let number = |after: &str| -> u64 {
        let rest = &line[line.find(after).unwrap_or_else(|| panic!("{line}")) + after.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number after {after:?} in {line}"))
    };
    (number(" in "), number("executions ("))
}

#[test]
fn a_variant_never_carved_is_generated_and_arguments_fit_their_types() {
    let p = Project::of("types", "shapes");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}\n{PARCELS}"));
    p.replace("tests/carve.rs", "carve::main!();", SYSTEM_TEST);
    p.record().assert_success();
    let carved = p.read("carved/cost.ron");
    assert!(carved.contains("Ground("), "{carved}");
    assert!(
        !carved.contains("Air(") && !carved.contains("Sea"),
        "{carved}"
    );

    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    let output = run.output();
    let generated = p.read("carved/cost.ron");
    assert!(
        generated.contains("Air(") || generated.contains("Sea"),
        "no call with a variant never carved:\n{generated}\n{output}"
    );
    let (executions, undeserializable) = counts(&output, "cost");
    assert!(executions > 0, "{output}");
    assert!(
        undeserializable * 100 <= executions,
        "{undeserializable} of {executions} generated arguments did not deserialize:\n{output}"
    );
    // Every parameter of `cost` was traced: nothing says otherwise.
    assert!(
        !output.contains("carve: cost: generating from carved values only"),
        "{output}"
    );
}

/// A syntax tree whose first variants all hold the tree itself: its type
/// is traced (a recursion through one variant takes another, down to the
/// one that ends), so generation builds trees the system test never made.
const SYNTAX_TREE: &str = r#"
/// An arithmetic expression.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "carve", derive(serde::Serialize, serde::Deserialize))]
pub enum Expr {
    Add(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Lit(i32),
}

#[cfg_attr(feature = "carve", carve::target)]
pub fn eval(expr: &Expr) -> i64 {
    match expr {
        Expr::Add(l, r) => eval(l) + eval(r),
        Expr::Neg(e) => -eval(e),
        Expr::Lit(n) if *n < 0 => 0,
        Expr::Lit(n) => i64::from(*n),
    }
}
"#;

#[test]
fn a_syntax_tree_whose_first_variants_recurse_is_generated() {
    let p = Project::of("types", "syntax-tree");
    let lib = p.read("src/lib.rs");
    p.write("src/lib.rs", &format!("{lib}\n{SYNTAX_TREE}"));
    p.replace(
        "tests/carve.rs",
        "carve::main!();",
        "#[carve::system_test]\nfn evaluates() {\n    assert_eq!(types::eval(&types::Expr::Lit(2)), 2);\n}\n\ncarve::main!();",
    );
    p.record().assert_success();
    let run = p.test(&[("CARVE", "generate"), ("CARVE_BUDGET", "2000")], &[]);
    let output = run.output();
    assert!(
        !output.contains("carve: eval: generating from carved values only"),
        "{output}"
    );
    let generated = p.read("carved/eval.ron");
    for variant in ["Add(", "Neg("] {
        assert!(
            generated.contains(variant),
            "no {variant} in:\n{generated}\n{output}"
        );
    }
    assert!(output.contains("carve: eval: branch coverage"), "{output}");
}
