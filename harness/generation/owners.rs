//! One exploration per reach: when the reaches of several targets hold one
//! function (two names of one parser, `Version::parse` and
//! `FromStr::from_str`; methods that all call the same helper), one of them
//! owns it, and only its generation aims at the function's goals. The
//! others treat them as covered, so their budget goes to what only they
//! reach.
//!
//! Owners are decided before generation, from the registry and the carve
//! files only (each target's reach as its calls in the files show it, the
//! calls that generation with this run's seed made left out, as for
//! coverage in [`crate::generation::worker::Baseline`]): every target's
//! generation decides the same, whatever the job count, the order or the
//! nextest partition.
//!
//! A function is owned by the target it is (a target's own outcomes are
//! always its own), else by the target whose calls entered it, else by any
//! target that may call it; among those, by the one with the smallest reach
//! (the most direct way in), then by name.
//!
//! ```
//! use carve::generation::owners::Owners;
//! # static SITES: carve::registry::Sites = carve::registry::Sites::new("c::m", "f", "f.rs", (1, 2), &[], &[]);
//! let owners = Owners::decide(&[("f".to_owned(), &SITES, vec![])], &[&SITES]);
//! assert_eq!(owners.owner(&SITES), Some("f"));
//! ```

use crate::coverage::reach::Reach;
use crate::registry::Sites;

/// Which target explores each function in some target's reach.
#[derive(Debug, Clone, Default)]
pub struct Owners {
    by_function: Vec<(&'static Sites, String)>,
}

impl Owners {
    /// Decides the owners for `targets`: each its name, its own sites and
    /// the functions its calls entered; `known` are every instrumented
    /// function (reaches close over their call sites in it).
    pub fn decide(
        targets: &[(String, &'static Sites, Vec<&'static Sites>)],
        known: &[&'static Sites],
    ) -> Owners {
        // (name, functions in reach, entered) per target.
        let reaches: Vec<(&str, &'static Sites, Vec<&'static Sites>, &[&'static Sites])> = targets
            .iter()
            .map(|(name, sites, entered)| {
                let reach = Reach::new(sites, entered.iter().copied(), known);
                (name.as_str(), *sites, reach.functions().to_vec(), entered.as_slice())
            })
            .collect();
        let mut by_function: Vec<(&'static Sites, String)> = Vec::new();
        for (_, _, functions, _) in &reaches {
            for function in functions {
                if by_function.iter().any(|(f, _)| std::ptr::eq(*f, *function)) {
                    continue;
                }
                let is = |f: &&'static Sites| std::ptr::eq(*f, *function);
                let owner = reaches
                    .iter()
                    .filter(|(_, _, functions, _)| functions.iter().any(is))
                    .min_by_key(|(name, sites, functions, entered)| {
                        (
                            !is(sites),
                            !entered.iter().any(is),
                            functions.len(),
                            *name,
                        )
                    })
                    .map(|(name, ..)| (*name).to_owned());
                if let Some(owner) = owner {
                    by_function.push((function, owner));
                }
            }
        }
        Owners { by_function }
    }

    /// The target that explores `function`, if it is in some reach.
    pub fn owner(&self, function: &Sites) -> Option<&str> {
        self.by_function
            .iter()
            .find(|(f, _)| std::ptr::eq(*f, function))
            .map(|(_, owner)| owner.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Branch, BranchKind, CallSite, Side};

    const fn branch(side: Side) -> Branch {
        Branch {
            kind: BranchKind::Condition,
            condition: "x",
            side,
            line: 1,
            col: 1,
            parent: u32::MAX,
        }
    }
    const fn call(callee: &'static str) -> CallSite {
        CallSite {
            callee,
            parent: u32::MAX,
        }
    }

    static OUTCOMES: [Branch; 2] = [branch(Side::True), branch(Side::False)];
    static PARSE_INNER: Sites = Sites::new("c", "parse_inner", "lib.rs", (1, 9), &OUTCOMES, &[]);
    static CALLS_INNER: [CallSite; 1] = [call("parse_inner")];
    static PARSE: Sites = Sites::new("c", "Version::parse", "lib.rs", (10, 12), &[], &CALLS_INNER);
    static FROM_STR: Sites = Sites::new("c", "from_str", "lib.rs", (13, 15), &[], &CALLS_INNER);
    static CALLS_PARSE: [CallSite; 1] = [call("Version::parse")];
    static MATCHES: Sites = Sites::new("c", "matches", "lib.rs", (16, 20), &OUTCOMES, &CALLS_PARSE);

    fn target(name: &str, sites: &'static Sites, entered: &[&'static Sites]) -> (String, &'static Sites, Vec<&'static Sites>) {
        (name.to_owned(), sites, entered.to_vec())
    }

    /// Two names of one parser: the first by name owns the helper; a
    /// target's own function is its own; a target that entered the helper
    /// owns it before one that only may call it.
    #[test]
    fn one_target_owns_each_shared_function() {
        let known = [&PARSE_INNER, &PARSE, &FROM_STR, &MATCHES];
        let owners = Owners::decide(
            &[
                target("from_str", &FROM_STR, &[&PARSE_INNER]),
                target("Version::parse", &PARSE, &[&PARSE_INNER]),
                target("matches", &MATCHES, &[&MATCHES, &PARSE]),
            ],
            &known,
        );
        assert_eq!(owners.owner(&PARSE_INNER), Some("Version::parse"));
        assert_eq!(owners.owner(&FROM_STR), Some("from_str"));
        assert_eq!(owners.owner(&MATCHES), Some("matches"));
        // `matches` entered `Version::parse` (and so may reach the helper),
        // but the function is a target of its own.
        assert_eq!(owners.owner(&PARSE), Some("Version::parse"));
        // Had no call entered the helper, the smaller reach would own it.
        let owners = Owners::decide(
            &[
                target("a_matches", &MATCHES, &[&PARSE]),
                target("from_str", &FROM_STR, &[]),
            ],
            &known,
        );
        assert_eq!(owners.owner(&PARSE_INNER), Some("from_str"));
    }
}
