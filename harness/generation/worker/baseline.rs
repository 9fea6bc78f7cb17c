//! Where generation starts: the carve files replayed once per run, in the
//! parent; workers are sent what it showed ([`Baseline::start`]). What
//! generation stored is counted on top of it from the traces the workers
//! sent with each entry ([`Baseline::add_traced`]): no call runs again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::call::ArgsInput;
use crate::carving::store::{CarveFile, Entry, Origin};
use crate::coverage;
use crate::coverage::reach::Reach;
use crate::coverage::report::find_source;
use crate::coverage::Trace;
use crate::generation::borrowed;
use crate::generation::owners::Owners;
use crate::generation::sealed::Sealed;
use crate::generation::generate::{
    Existing,
};
use crate::outcome::{quietly, Ending, Failure, Outcome};
use crate::registry::{Registry, Target};
use crate::value::text::UNNAMED;
use crate::value::{depth, Value};
use super::error::WorkerError;
use super::protocol::Start;

/// Where generation for `target` starts, as [`Baseline::replay`] shows it
/// (for carve's own tests: generation replays once and keeps the baseline).
#[cfg(any(test, feature = "_internals"))]
pub fn existing_calls(
    registry: &Registry,
    target: &'static Target,
    file: &CarveFile,
    dir: &Path,
    seed: u64,
) -> Result<Existing, WorkerError> {
    Ok(Baseline::replay(registry, target, file, dir, seed)?.existing())
}

/// What replaying the carve files showed ([`Baseline::replay`]), kept so that
/// what generation adds is counted on top of it, from its workers' traces
/// ([`Baseline::add_traced`]), without replaying a file or an entry again.
pub struct Baseline {
    target: &'static Target,
    /// Arguments of the target's own calls that replayed, then those it
    /// borrowed from the other targets' calls ([`Baseline::borrow_seeds`],
    /// [`Baseline::add_kin`]).
    seeds: Vec<Value>,
    known_failures: BTreeSet<Failure>,
    /// The functions the target's own calls enter, in the order first
    /// entered.
    entered: Vec<&'static crate::registry::Sites>,
    /// What each passing call, of any target, reached.
    passing: Vec<Trace>,
    /// The longest one of the target's own calls took.
    slowest: Duration,
    /// Arguments of the target's own calls that crashed, without layout.
    crashing: BTreeSet<String>,
    /// Why a target with no call of its own that replays could not be
    /// seeded from the others' ([`crate::generation::borrowed`]).
    unseeded: Option<String>,
    /// This run's seed: its calls do not decide [`Baseline::owners`].
    seed: u64,
    /// The functions the target's own calls enter, those that generation
    /// with this run's seed made aside.
    entered_before: Vec<&'static crate::registry::Sites>,
    /// Which target explores each function shared by reaches.
    owners: Owners,
    /// The crate's sealed structs, and the values of them its API made in
    /// the calls replayed.
    sealed: Sealed,
}

impl Baseline {
    /// Replays the carve files in `dir` once per run, to learn where generation
    /// for `target` starts (workers are sent what it showed, [`Baseline::start`]):
    /// its own entries (`file`) give the seeds, known failures and the
    /// functions its calls enter; every passing call of every target in `dir`
    /// counts for what is already covered, except the calls other targets'
    /// generation with this `seed` made. Those are left out so that each
    /// target's generation depends only on its own file and on what the run
    /// started from: targets then generate in any order, at once
    /// (`CARVE_JOBS`) or on different machines (nextest partitions), with the
    /// same files as one after another. Crashing entries are not run.
    pub fn replay(
        registry: &Registry,
        target: &'static Target,
        file: &CarveFile,
        dir: &Path,
        seed: u64,
    ) -> Result<Baseline, WorkerError> {
        let mut baseline = Baseline {
            target,
            seeds: Vec::new(),
            known_failures: BTreeSet::new(),
            entered: Vec::new(),
            passing: Vec::new(),
            slowest: Duration::ZERO,
            crashing: BTreeSet::new(),
            unseeded: None,
            seed,
            entered_before: Vec::new(),
            owners: Owners::default(),
            sealed: sealed_of_sources(),
        };
        baseline.add(&file.entries);
        // Arguments of the other targets' calls, in file order: they seed a
        // target with no call of its own.
        let mut donors = Vec::new();
        // What those calls returned: values the API made, for a target the
        // arguments cannot seed ([`Baseline::borrow_made`]).
        let mut returned = Vec::new();
        // The functions each other target's calls enter, for the owners.
        let mut entered_by: BTreeMap<String, Vec<&'static crate::registry::Sites>> = BTreeMap::new();
        for path in CarveFile::list(dir)? {
            if path == file.path {
                continue;
            }
            // A file that does not load fails its own test; here it only
            // covers nothing.
            let Ok(other) = CarveFile::load(dir, &path) else {
                continue;
            };
            let Some(called) = registry.target(&other.target) else {
                continue;
            };
            for entry in other.entries.iter().filter(|e| !made_with(&e.origin, seed)) {
                let Some((args, functions, made)) = baseline.replay_one(called, entry) else {
                    continue;
                };
                donors.extend(args);
                returned.extend(made);
                let entered = entered_by.entry(other.target.clone()).or_default();
                for sites in functions {
                    if !entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                        entered.push(sites);
                    }
                }
            }
        }
        entered_by.insert(target.name(), baseline.entered_before.clone());
        let targets: Vec<_> = registry
            .targets()
            .map(|(name, t)| {
                let entered = entered_by.remove(name).unwrap_or_default();
                (name.to_owned(), t.sites, entered)
            })
            .collect();
        baseline.owners = Owners::decide(&targets, &crate::registry::all_sites());
        if baseline.seeds.is_empty() {
            baseline.borrow_seeds(&donors);
            if baseline.seeds.is_empty() {
                let others: Vec<&'static Target> = registry
                    .targets()
                    .map(|(_, t)| t)
                    .filter(|t| !std::ptr::eq(*t, target))
                    .collect();
                baseline.borrow_made(&others, &donors, returned);
            }
        } else {
            baseline.add_kin(&donors);
        }
        Ok(baseline)
    }

    /// Seeds a target that has no call of its own that replays (no system
    /// test called it) with values of its parameter types carved for other
    /// targets ([`borrowed::seeds`]). They are run once, for the functions
    /// they enter (its reach), but cover nothing here: generation keeps
    /// what of them is worth keeping, as it keeps its own calls.
    fn borrow_seeds(&mut self, donors: &[Value]) {
        let seeds = match borrowed::seeds(&self.target.param_types(), donors) {
            Ok(seeds) => seeds,
            Err(why) => {
                self.unseeded = Some(why);
                return;
            }
        };
        // Enough to mine a grammar from; trying more costs calls.
        self.try_seeds(seeds, borrowed::PER_PARAM * 4);
        if self.seeds.is_empty() {
            self.unseeded = Some("no value carved for other targets deserializes into its parameters".into());
        }
    }

    /// Seeds a target that the others' carved arguments could not seed
    /// ([`Baseline::borrow_seeds`]) with values of its parameters' types
    /// that the crate's API made: those the other targets' carved calls
    /// returned (`returned`), and those returned by calls of the `others`
    /// whose signature returns such a type ([`borrowed::may_return`]: a
    /// `hosts(&self) -> Ipv6AddrRange` no system test called), made from
    /// the carved arguments as a target with no call is seeded. Neither the
    /// simplest value nor one assembled from carved texts seeds a struct
    /// whose fields its users cannot set (sealed: only values the API made
    /// are run), where a value some call returned does. A constructor call
    /// runs here, once per seed, as [`Baseline::try_seeds`] runs seeds.
    fn borrow_made(&mut self, others: &[&'static Target], donors: &[Value], mut returned: Vec<Value>) {
        let types = self.target.param_types();
        let wanted = borrowed::wanted(&types);
        if wanted.is_empty() {
            return;
        }
        for other in others {
            let self_ty = borrowed::self_type(other.fn_name);
            if !wanted.iter().any(|name| borrowed::may_return(other.signature, self_ty, name)) {
                continue;
            }
            let Ok(seeds) = borrowed::seeds(&other.param_types(), donors) else {
                continue;
            };
            for seed in seeds.into_iter().take(borrowed::PER_PARAM) {
                // Traced apart: it covers nothing of this target's.
                let (replayed, _) = coverage::collect(|| quietly(|| (other.replay)(ArgsInput::Value(&seed))));
                let Ok(replayed) = replayed else {
                    continue;
                };
                let Outcome::Returned(value) = replayed.observation.outcome else {
                    continue;
                };
                // What it returned is made only if its arguments were.
                if self.sealed.admits(&seed) {
                    self.sealed.add_call(false, &seed, &[Some(&value)]);
                    returned.push(value);
                }
            }
        }
        if returned.is_empty() {
            return;
        }
        // Each returned value as a whole argument (a struct is not taken
        // apart into its fields as an argument list is).
        let more: Vec<Value> = donors
            .iter()
            .cloned()
            .chain(returned.into_iter().map(|v| Value::Struct(UNNAMED, vec![("returned", v)])))
            .collect();
        if let Ok(seeds) = borrowed::seeds(&types, &more) {
            self.try_seeds(seeds, borrowed::PER_PARAM * 4);
        }
        if !self.seeds.is_empty() {
            self.unseeded = None;
        }
    }

    /// Seeds a target that has calls of its own also with the texts carved
    /// for other targets that parse into its text-form parameters
    /// ([`borrowed::kin`]), run once as [`Baseline::borrow_seeds`] runs its
    /// seeds: generation derives from them as from its own calls, and keeps
    /// those that cover something new.
    fn add_kin(&mut self, donors: &[Value]) {
        let kin = borrowed::kin(&self.target.param_types(), &self.seeds, donors);
        let cap = self.seeds.len() + kin.len();
        self.try_seeds(kin, cap);
    }

    /// Runs `seeds` once each and keeps, up to `cap` seeds in all, those
    /// that deserialize, with the functions they enter (the reach): they
    /// cover nothing here.
    fn try_seeds(&mut self, seeds: Vec<Value>, cap: usize) {
        for seed in seeds {
            if self.seeds.len() >= cap {
                break;
            }
            let (replayed, trace) = coverage::collect(|| {
                quietly(|| (self.target.replay)(ArgsInput::Value(&seed)))
            });
            // Seeds that do not deserialize are left out: candidates for a
            // type that could not be traced, a text that parses but not back
            // into the same text; so are values of sealed structs the API
            // did not make (a type's simplest value).
            if replayed.is_err() || !self.sealed.admits(&seed) {
                continue;
            }
            for sites in trace.functions() {
                if !self.entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                    self.entered.push(sites);
                }
            }
            self.seeds.push(seed);
        }
    }

    /// Why the target has no seeds, when it has none: no call of its own
    /// replays, and the others' carved values could not seed it.
    pub fn unseeded(&self) -> Option<&str> {
        self.unseeded.as_deref()
    }

    /// Replays `entries` of the target's own carve file.
    pub fn add(&mut self, entries: &[Entry]) {
        for entry in entries {
            if let Some(failure) = entry.origin.failure() {
                self.known_failures.insert(failure);
            }
            if entry.outcome.is_crash() {
                self.crashing.insert(entry.call_id().as_str().to_owned());
            }
            let started = Instant::now();
            let replayed = self.replay_one(self.target, entry);
            // The call timeout is derived from how long these take.
            self.slowest = self.slowest.max(started.elapsed());
            if let Some((args, functions, _)) = replayed {
                if !made_with(&entry.origin, self.seed) {
                    for &sites in &functions {
                        if !self.entered_before.iter().any(|e| std::ptr::eq(*e, sites)) {
                            self.entered_before.push(sites);
                        }
                    }
                }
                for sites in functions {
                    if !self.entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                        self.entered.push(sites);
                    }
                }
                self.seeds.extend(args);
            }
        }
    }

    /// Takes in what generation stored (its entries, in the order stored,
    /// each with its trace) as its workers traced the calls, without
    /// running one: where [`Baseline::add`]
    /// replays an entry, this reads its trace. Its failures are known and its
    /// crashes not made again; the functions its calls entered join the
    /// reach, and what its passing calls reached counts as covered. The
    /// slowest call's time stays the carve files' (only the call timeout,
    /// decided before generation, reads it), and its arguments seed nothing
    /// (generation is over).
    pub fn add_traced<'a>(&mut self, stored: impl IntoIterator<Item = (&'a Entry, &'a Trace)>) {
        for (entry, trace) in stored {
            if let Some(failure) = entry.origin.failure() {
                self.known_failures.insert(failure);
            }
            // A crash is never replayed: it enters nothing.
            if entry.outcome.is_crash() {
                self.crashing.insert(entry.call_id().as_str().to_owned());
                continue;
            }
            // Generation with this run's seed made it: `entered_before`
            // leaves it out.
            for sites in trace.functions() {
                if !self.entered.iter().any(|e| std::ptr::eq(*e, sites)) {
                    self.entered.push(sites);
                }
            }
            if entry.outcome.ending == Ending::Returned {
                self.passing.push(trace.clone());
            }
        }
    }

    /// Replays one call of `called`: its arguments, if they deserialized,
    /// the functions it entered, and what it returned, if it did. A passing
    /// call's trace is kept.
    #[allow(clippy::type_complexity)]
    fn replay_one(
        &mut self,
        called: &'static Target,
        entry: &Entry,
    ) -> Option<(Option<Value>, Vec<&'static crate::registry::Sites>, Option<Value>)> {
        let (args, trace, made) = self.replay_args(called, entry)?;
        let functions = trace.functions().collect();
        if made.is_some() {
            self.passing.push(trace);
        }
        Some((args, functions, made))
    }

    /// Seeds a later round of generation with the calls that passed among
    /// `entries`, which an earlier round stored: replayed for their
    /// arguments only (what they reached is taken from their traces,
    /// [`Baseline::add_traced`]), and for the values of sealed structs they
    /// made.
    pub fn seed_with<'a>(&mut self, entries: impl IntoIterator<Item = &'a Entry>) {
        for entry in entries {
            let generated = matches!(entry.origin, Origin::Generated { .. });
            if !generated || entry.outcome.ending != Ending::Returned {
                continue;
            }
            if let Some((Some(args), _, Some(_))) = self.replay_args(self.target, entry) {
                self.seeds.push(args);
            }
        }
    }

    /// Replays one call of `called`: its arguments, if they deserialized,
    /// what it reached, and what it returned, if it did. What the API made
    /// in it counts for sealed structs.
    fn replay_args(&mut self, called: &'static Target, entry: &Entry) -> Option<(Option<Value>, Trace, Option<Value>)> {
        if entry.outcome.is_crash() {
            return None;
        }
        let (replayed, trace) =
            coverage::collect(|| quietly(|| (called.replay)(ArgsInput::Ron(&entry.args))));
        let replayed = replayed.ok()?;
        let returned = matches!(replayed.observation.outcome, Outcome::Returned(_));
        if let Some(args) = &replayed.args {
            // A call that panicked may have left its `&mut` arguments half
            // changed: only what a call that returned shows was made.
            let observation = &replayed.observation;
            let outputs = if returned {
                [observation.outcome.returned(), observation.after.as_ref()]
            } else {
                [None, None]
            };
            // Generation stores only calls whose arguments the API made; a
            // failure's arguments may be what made it fail (a forged value
            // stored before sealed structs were told apart).
            let trusted = match entry.origin {
                Origin::System(_) => true,
                Origin::Generated { .. } => returned,
                Origin::Found { .. } => false,
            };
            self.sealed.add_call(trusted, args, &outputs);
        }
        let made = match replayed.observation.outcome {
            Outcome::Returned(value) if returned => Some(value),
            _ => None,
        };
        Some((replayed.args, trace, made))
    }

    /// Where a worker starts: `existing` (what [`Baseline::existing`]
    /// said) as it travels in its setup.
    pub fn start(&self, existing: &Existing) -> Result<Start, WorkerError> {
        // Seeds nest as deep as carve writes values.
        Ok(depth::with_stack(|| {
            Start::new(existing, &self.entered, self.crashing.clone())
        })?)
    }

    /// Where generation starts, or what it reached.
    pub fn existing(&self) -> Existing {
        let reach = Reach::new(
            self.target.sites,
            self.entered.iter().copied(),
            &crate::registry::all_sites(),
        )
        .with_goals();
        let covered = self
            .passing
            .iter()
            .flat_map(|trace| reach.covered(trace))
            .collect();
        let inapplicable = reach.inapplicable(&self.passing);
        let name = self.target.name();
        let delegated = reach.goals_of(|f| self.owners.owner(f).is_some_and(|o| o != name));
        Existing {
            reach,
            seeds: self.seeds.clone(),
            covered,
            inapplicable,
            known_failures: self.known_failures.clone(),
            slowest: self.slowest,
            delegated,
            sealed: self.sealed.clone(),
        }
    }

    /// The targets that explore the goals in `existing`'s reach that
    /// another target owns ([`Existing::delegated`]), with how many branch
    /// outcomes each, in name order.
    pub fn delegated_to(&self, existing: &Existing) -> BTreeMap<String, usize> {
        let name = self.target.name();
        let mut to = BTreeMap::new();
        for &function in existing.reach.functions() {
            if let Some(owner) = self.owners.owner(function).filter(|o| *o != name) {
                *to.entry(owner.to_owned()).or_default() += function.branches.len();
            }
        }
        to
    }
}

/// The sealed structs of the sources of the functions the attributes
/// marked (every target and helper registers its site table, which names
/// its file), read once per process ([`Sealed::of_sources`] reads their
/// folders): every target's generation in a run asks, and the sources do
/// not change meanwhile.
fn sealed_of_sources() -> Sealed {
    static SEALED: std::sync::OnceLock<Sealed> = std::sync::OnceLock::new();
    SEALED
        .get_or_init(|| {
            let files: BTreeSet<&str> =
                crate::registry::all_sites().iter().map(|s| s.file).collect();
            Sealed::of_sources(files.into_iter().filter_map(find_source))
        })
        .clone()
}

/// Whether generation with `seed` made the entry of this `origin`.
fn made_with(origin: &Origin, seed: u64) -> bool {
    match origin {
        Origin::Generated { seed: made, .. } | Origin::Found { seed: made, .. } => *made == seed,
        Origin::System(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::WorkerSetup;
    use super::*;
    use crate::env::Budget;
    use crate::outcome::Observation;
    use crate::generation::testing;

    /// Calls of [`COUNTED`] made so far.
    static COUNTED_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static COUNTED_SITES: crate::registry::Sites =
        crate::registry::Sites::new("demo", "counted", "", (0, 0), &[], &[]);
    /// A target that counts its calls.
    static COUNTED: Target = Target {
        module_path: "demo",
        fn_name: "counted",
        signature: "fn counted(x: u64)",
        file: "",
        line: 0,
        sites: &COUNTED_SITES,
        replay: |args| {
            COUNTED_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let x = match args {
                ArgsInput::Ron(text) => text.len() as u64,
                ArgsInput::Value(_) => 0,
            };
            Ok(crate::call::Replayed {
                args: Some(Value::Struct("args", vec![("x", Value::U64(x))])),
                observation: Observation {
                    outcome: Outcome::Returned(Value::Unit),
                    after: None,
                },
            })
        },
        trace: |_| {},
        uncarvable: || None,
    };

    /// Calls of [`BRANCHY`] made so far.
    static BRANCHY_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static BRANCHY_SITES: crate::registry::Sites = crate::generation::testing::x_gt_9("branchy");
    /// `if x > 9 { … } else { … }`, instrumented by hand.
    static BRANCHY: Target = Target {
        module_path: "demo",
        fn_name: "branchy",
        signature: "fn branchy(x: u64)",
        file: "src/lib.rs",
        line: 1,
        sites: &BRANCHY_SITES,
        replay: |args| {
            BRANCHY_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let x: u64 = match args {
                ArgsInput::Ron(text) => text
                    .trim_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .unwrap_or(0),
                ArgsInput::Value(_) => 0,
            };
            coverage::enter(&BRANCHY_SITES);
            coverage::hit(&BRANCHY_SITES, if x > 9 { 0 } else { 1 });
            Ok(crate::call::Replayed {
                args: Some(Value::Struct("args", vec![("x", Value::U64(x))])),
                observation: Observation {
                    outcome: Outcome::Returned(Value::Unit),
                    after: None,
                },
            })
        },
        trace: |_| {},
        uncarvable: || None,
    };

    /// A range whose fields its users cannot set (sealed), of two
    /// addresses carved as text: ipnet's `Ipv6AddrRange`.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Range {
        start: std::net::Ipv4Addr,
        end: std::net::Ipv4Addr,
    }

    #[derive(serde::Deserialize)]
    struct RangeArgs {
        #[serde(rename = "self")]
        _range: Range,
    }

    #[derive(serde::Deserialize)]
    struct NetArgs {
        #[serde(rename = "self")]
        prefix: u8,
    }

    fn value_args<'v, T: serde::Deserialize<'v>>(args: ArgsInput<'v>) -> Result<T, crate::call::ReplayError> {
        let bad = |message: String| crate::call::ReplayError::Args {
            position: crate::call::Position { line: 1, col: 1 },
            message,
        };
        match args {
            ArgsInput::Value(v) => T::deserialize(v).map_err(|e| bad(e.to_string())),
            ArgsInput::Ron(_) => Err(bad("values only".into())),
        }
    }

    static RANGE_NEXT_SITES: crate::registry::Sites = crate::generation::testing::x_gt_9("range_next");
    /// `Range::next`, which no system test called.
    static RANGE_NEXT: Target = Target {
        module_path: "demo",
        fn_name: "Range::next",
        signature: "fn next(&mut self) -> Option<Self::Item>",
        file: "src/lib.rs",
        line: 1,
        sites: &RANGE_NEXT_SITES,
        replay: |args| {
            let _: RangeArgs = value_args(args)?;
            Ok(crate::call::Replayed {
                args: None,
                observation: Observation {
                    outcome: Outcome::Returned(Value::Unit),
                    after: None,
                },
            })
        },
        trace: |types| types.param("self", crate::value::tracer::trace::<Range>()),
        uncarvable: || None,
    };

    /// `Net::hosts(&self) -> Range`: the API's way to a `Range`, from a
    /// prefix length (a `u8` here) carved for another target.
    static NET_HOSTS: Target = Target {
        module_path: "demo",
        fn_name: "Net::hosts",
        signature: "pub fn hosts(&self) -> Range",
        file: "src/lib.rs",
        line: 1,
        sites: &COUNTED_SITES,
        replay: |args| {
            let NetArgs { prefix } = value_args(args)?;
            let range = Range {
                start: std::net::Ipv4Addr::new(10, 0, 0, 1),
                end: std::net::Ipv4Addr::new(10, 0, 0, prefix),
            };
            Ok(crate::call::Replayed {
                args: None,
                observation: Observation {
                    outcome: Outcome::Returned(Value::capture(&range).unwrap()),
                    after: None,
                },
            })
        },
        trace: |types| types.param("self", crate::value::tracer::trace::<u8>()),
        uncarvable: || None,
    };

    /// A target whose parameter is a sealed struct no carved call holds is
    /// seeded with one the API returned: `Net::hosts`, run on a value
    /// carved for another target. Its simplest value (empty address texts)
    /// does not deserialize, and one assembled from carved texts is not
    /// run (the API did not make it): neither seeds it.
    #[test]
    fn a_sealed_parameter_is_seeded_with_what_a_constructor_returned() {
        let (scratch, dir) = testing::scratch();
        let file = CarveFile {
            path: CarveFile::path_for(&dir, "Range::next"),
            target: "Range::next".into(),
            entries: Vec::new(),
        };
        let registry = Registry::collect();
        let mut baseline = Baseline::replay(&registry, &RANGE_NEXT, &file, &dir, 1).unwrap();
        assert!(baseline.unseeded().is_some(), "its simplest value seeded it");
        baseline.sealed = Sealed::new(["Range"]);
        let texts = |start: &str, end: &str| {
            let range = Value::Struct("Range", vec![("start", Value::Str(start.into())), ("end", Value::Str(end.into()))]);
            Value::Struct(UNNAMED, vec![("self", range)])
        };
        baseline.try_seeds(vec![texts("10.0.0.1", "10.0.0.9")], 4);
        assert!(baseline.seeds.is_empty(), "a range the API did not make seeded it");
        let donors = [Value::Struct("args", vec![("n", Value::U64(7)), ("s", Value::Str("x".into()))])];
        // Targets that return no `Range` are not run.
        let calls = COUNTED_CALLS.load(std::sync::atomic::Ordering::SeqCst);
        baseline.borrow_made(&[&COUNTED], &donors, Vec::new());
        assert_eq!(COUNTED_CALLS.load(std::sync::atomic::Ordering::SeqCst), calls);
        assert!(baseline.seeds.is_empty());
        baseline.borrow_made(&[&COUNTED, &NET_HOSTS], &donors, Vec::new());
        assert_eq!(baseline.seeds, [texts("10.0.0.1", "10.0.0.7")]);
        assert_eq!(baseline.unseeded(), None);
        // What another target's carved call returned seeds it as well.
        let mut other = Baseline::replay(&registry, &RANGE_NEXT, &file, &dir, 1).unwrap();
        other.sealed = Sealed::new(["Range"]);
        let made = texts("10.0.0.1", "10.0.0.3");
        let Value::Struct(_, fields) = &made else { unreachable!() };
        other.sealed.add_made(&fields[0].1);
        other.borrow_made(&[], &donors, vec![fields[0].1.clone()]);
        assert_eq!(other.seeds, [made]);
        drop(scratch);
    }

    /// What generation stored counts as the worker traced it: the same
    /// coverage as replaying its entries, without running a call.
    #[test]
    fn what_generation_stored_counts_from_its_traces_without_a_call() {
        use std::sync::atomic::Ordering::SeqCst;
        let (scratch, dir) = testing::scratch();
        let path = CarveFile::path_for(&dir, "branchy");
        let system = testing::returned(Origin::System("t".into()), 1);
        CarveFile::write(&path, &CarveFile::render("branchy", &[system])).unwrap();
        let file = CarveFile::load(&dir, &path).unwrap();
        let registry = Registry::collect();
        let baseline = || Baseline::replay(&registry, &BRANCHY, &file, &dir, 1).unwrap();
        let (mut replayed, mut traced) = (baseline(), baseline());
        drop(scratch);
        assert_eq!(replayed.existing().count(None), (1, 2));
        let generated = Origin::Generated {
            seed: 1,
            added: vec![],
        };
        let kept = testing::returned(generated, 22);
        // As the worker traced the call when it ran it.
        let (_, trace) = coverage::collect(|| (BRANCHY.replay)(ArgsInput::Ron(&kept.args)));
        let calls = BRANCHY_CALLS.load(SeqCst);
        replayed.add(std::slice::from_ref(&kept));
        assert_eq!(BRANCHY_CALLS.load(SeqCst), calls + 1);
        traced.add_traced([(&kept, &trace)]);
        assert_eq!(BRANCHY_CALLS.load(SeqCst), calls + 1, "the stored call ran again");
        let (replayed, traced) = (replayed.existing(), traced.existing());
        assert_eq!(traced.count(None), (2, 2));
        assert_eq!(traced.covered, replayed.covered);
        assert_eq!(traced.inapplicable, replayed.inapplicable);
        assert_eq!(traced.reach.all_len(), replayed.reach.all_len());
    }

    /// The parent replays the carve files once per run; a worker starts
    /// from what that showed, sent in its setup, and runs no call of theirs
    /// (nor does a restarted one: every start reads the same setup).
    #[test]
    fn a_worker_start_replays_no_existing_call() {
        use std::sync::atomic::Ordering::SeqCst;
        let (scratch, dir) = testing::scratch();
        let path = CarveFile::path_for(&dir, "counted");
        let entry = |args: &str, outcome: &str| {
            let outcome = crate::carving::store::StoredOutcome::parse(outcome).unwrap();
            Entry::new(Origin::System("t".into()), args, outcome, None)
        };
        let entries = [
            entry("(x: 1)", "Returned(())"),
            entry("(x: 22)", "Returned(())"),
            entry("(x: 333)", "Crashed(\"abort\")"),
        ];
        CarveFile::write(&path, &CarveFile::render("counted", &entries)).unwrap();
        let file = CarveFile::load(&dir, &path).unwrap();
        let registry = Registry::collect();
        let baseline = Baseline::replay(&registry, &COUNTED, &file, &dir, 1).unwrap();
        drop(scratch);
        // The crashing call is not run.
        assert_eq!(COUNTED_CALLS.load(SeqCst), 2);
        let existing = baseline.existing();
        let setup = WorkerSetup {
            scratch: dir.clone(),
            seed: 1,
            budget: Budget::Executions(10).into(),
            cap: 10,
            timeout_ms: 1000,
            restart: false,
            crashes: vec![],
            unbuildable: vec![],
            start: baseline.start(&existing).unwrap(),
            round: 0,
            counters: None,
        };
        for _start in 0..3 {
            let line = setup.to_line().unwrap();
            let read = WorkerSetup::from_line(&line).unwrap();
            let started = read.start.existing(&COUNTED).unwrap();
            assert_eq!(started.seeds, existing.seeds);
            assert_eq!(started.covered, existing.covered);
            assert_eq!(started.inapplicable, existing.inapplicable);
            assert_eq!(started.known_failures, existing.known_failures);
            assert_eq!(started.reach.all_len(), existing.reach.all_len());
            assert_eq!(read.start.crashing, ["(x:333)".to_owned()].into());
        }
        assert_eq!(COUNTED_CALLS.load(SeqCst), 2, "a worker start ran a carve-file call");
    }
}
