//! Search-based generation: reaching branch outcomes that recombining carved
//! values does not reach (`x == 2 * (y + 1)` for large values, conditions
//! nested under arithmetic), guided by approach level and branch distance.
//!
//! The fitness of a call for an uncovered outcome is its *approach level*
//! (how many control-dependence levels the call stayed away from the
//! outcome) plus the normalized branch distance d/(d+1) where it diverged;
//! 0 means covered. The search space ([`moves`](crate::generation::moves))
//! is the call's argument [`Value`] tree;
//! its variables are the tree's leaves (integers, floats, chars, bools, the
//! characters of strings, the bytes of byte strings), plus string, byte
//! string and sequence lengths. A byte moves like an integer in 0..=255, and
//! takes characters of the dictionary up to `'\u{ff}'` (Latin-1), as the
//! grammar reads byte strings.
//!
//! Two algorithms share one archive (the best call per uncovered goal):
//! - [`Search::avm`], the alternating variable method per goal: for each
//!   variable, exploratory ±1 moves, then pattern moves that double the step
//!   while they improve, then halving steps back, plus a secant step that
//!   jumps to where a linear distance would be 0. A move that breaks an
//!   enclosing condition is repaired by a short search over the other
//!   variables; when no move improves, the search perturbs the best call
//!   (iterated local search) rather than restart from scratch.
//! - [`Search::evolve`], a many-objective genetic algorithm in the spirit of
//!   MOSA: tournament selection on the goals still uncovered, crossover
//!   of value trees, mutation with the same moves.
//!
//! Goals are the branch outcomes of every function in the target's
//! [`Reach`]: helpers count, and a helper no call entered yet is approached
//! through the call sites that lead to it. (Here a goal is an outcome id; the
//! target is the `#[carve::target]` function whose calls search makes.)

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::coverage::fitness::Fitness;
use crate::generation::moves::{
    crossover, dictionary, enum_name, enum_paths, enum_values, get, get_mut, jump_bits, moved,
    variables, variant_name, with_char,
};
use crate::coverage::reach::Reach;
use crate::coverage::Trace;
use crate::generation::goal_set::GoalSet;
use crate::generation::dictionary::{self, Dictionary};
use crate::generation::sealed::Sealed;
use crate::value::types::{ParamType, ParamTypes};
use crate::value::Value;

/// One evaluated call.
#[derive(Debug, Clone)]
pub struct Individual {
    /// Its arguments.
    pub args: Value,
    /// Whether it failed (panicked): it guides search, but covers nothing.
    pub failed: bool,
    /// What it reached.
    pub trace: Trace,
}

/// Runs a call and reports what it reached; `None` when its arguments do
/// not fit the parameters or the budget is spent.
pub trait Evaluate {
    /// Evaluates `args`.
    /// Returns what the call reached and whether it failed (panicked).
    fn evaluate(&mut self, args: &Value) -> Option<(Trace, bool)>;
    /// Whether the budget is spent.
    fn exhausted(&self) -> bool;
}

/// Search state for the goals of one target: what is left to cover, the
/// best call per goal so far, and the random source both algorithms share.
pub struct Search {
    reach: Reach,
    /// Goals still uncovered.
    pub uncovered: GoalSet,
    /// Best individual per uncovered goal.
    archive: BTreeMap<u32, (Fitness, Rc<Individual>)>,
    rng: StdRng,
    /// Characters seen in the seeds' strings and their classes: perturbing a
    /// character sometimes draws from these (a hex digit after a `%`).
    dictionary: Vec<char>,
    /// The parameter types: integer moves stay inside their type's range.
    types: ParamTypes,
    /// How many climbs the AVM began towards each goal: goals climbed least
    /// come first, so a goal no input covers (or one behind a panic) does
    /// not take every turn the AVM gets.
    climbs: BTreeMap<u32, u32>,
    /// Per string parameter (its index among the arguments): the tokens
    /// of its carved texts and of the dictionary, by
    /// [`dictionary::slot`], and whether it is text-form. Text-form ones
    /// move token by token.
    texts: BTreeMap<usize, (BTreeMap<String, Vec<String>>, bool)>,
    /// Per text-form parameter with a free word: the letters its words may
    /// be made of ([`dictionary::free_letters`]).
    letters: BTreeMap<usize, Vec<char>>,
    /// Per plain string parameter: what search inserts whole, between its
    /// tokens ([`Search::insert_piece`]).
    pieces: BTreeMap<usize, Vec<String>>,
    /// Structs whose values search does not move inside.
    sealed: Sealed,
}

/// A call's arguments with their fitness for the goal being climbed to.
#[derive(Debug, Clone)]
struct Point {
    args: Value,
    fitness: Fitness,
}

/// One run of [`Search::avm`] or [`Search::evolve`]: the search, the
/// evaluator its calls go through and the calls that covered goals first,
/// kept together so that the moves need not pass them along.
struct Run<'a> {
    search: &'a mut Search,
    eval: &'a mut dyn Evaluate,
    /// Calls that covered goals first, with those goals.
    found: Vec<(Value, Vec<u32>)>,
    /// Inside a repair: moves are not repaired again.
    repairing: bool,
    /// Calls evaluated in this run.
    evaluations: u64,
}

/// Rounds without improvement after which the AVM leaves a goal for now.
const ROUNDS: u32 = 64;
/// Random jumps tried from a local optimum per round.
const PERTURBATIONS: u32 = 64;

impl Search {
    /// A search for the branch outcomes of `reach` not in `covered`,
    /// seeded with calls already made.
    #[cfg(any(test, feature = "_internals"))]
    pub fn new(reach: Reach, covered: &BTreeSet<u32>, seeds: Vec<Individual>, seed: u64) -> Search {
        let branches = 0..reach.len();
        Search::aiming_at(reach, branches, covered, seeds, seed)
    }

    /// A search for the goals of `reach` in `goals` (branch outcomes, or
    /// boundaries and mutants) not in `covered`, seeded with calls
    /// already made.
    pub fn aiming_at(
        reach: Reach,
        goals: impl IntoIterator<Item = u32>,
        covered: &BTreeSet<u32>,
        seeds: Vec<Individual>,
        seed: u64,
    ) -> Search {
        let uncovered = goals
            .into_iter()
            .filter(|id| !covered.contains(id))
            .collect();
        let mut search = Search {
            reach,
            uncovered,
            archive: BTreeMap::new(),
            rng: StdRng::seed_from_u64(seed),
            dictionary: dictionary(seeds.iter().map(|i| &i.args)),
            types: ParamTypes::default(),
            climbs: BTreeMap::new(),
            texts: BTreeMap::new(),
            letters: BTreeMap::new(),
            pieces: BTreeMap::new(),
            sealed: Sealed::default(),
        };
        for individual in seeds {
            search.offer(&individual);
        }
        search
    }

    /// Draws perturbed characters from the characters of `values` (and
    /// their classes) only: by default, from all seeds.
    pub fn with_dictionary(mut self, values: &[Value]) -> Search {
        self.dictionary = dictionary(values.iter());
        self
    }

    /// Moves nothing inside values of the `sealed` structs (they travel
    /// whole in crossover): only the API makes them.
    pub fn with_sealed(mut self, sealed: Sealed) -> Search {
        self.sealed = sealed;
        self
    }

    /// Keeps integer moves inside the range of their traced `types` (a
    /// jump past a `u8`'s end lands on 255).
    pub fn with_types(mut self, types: ParamTypes) -> Search {
        self.types = types;
        self
    }

    /// Moves the text-form string parameters of `values` (of
    /// [`Self::with_types`], set first) token by token: a token is
    /// replaced by, or preceded by, a token of the texts of that parameter
    /// in `values` or of `dictionary`, or deleted (see
    /// [`crate::generation::dictionary`]).
    pub fn with_text_tokens(mut self, values: &[Value], dictionary: &Dictionary) -> Search {
        let mut texts: BTreeMap<usize, (&str, Vec<&str>)> = BTreeMap::new();
        for value in values {
            if let Value::Struct(_, fields) = value {
                for (index, (name, field)) in fields.iter().enumerate() {
                    if let Value::Str(s) = field {
                        texts.entry(index).or_insert((*name, Vec::new())).1.push(s);
                    }
                }
            }
        }
        for (index, (name, texts)) in texts {
            let text_form = matches!(self.types.get(name), Some(ParamType::Text { .. }));
            if !text_form {
                // The fragments of its own carved texts (as the grammar
                // appends them) and the dictionary's strings: a list item
                // or a keyword that characters inserted one by one build
                // only through texts that fail before they succeed.
                let pieces: BTreeSet<String> = texts
                    .iter()
                    .flat_map(|text| [dictionary::fragments(text), dictionary::items(text)])
                    .flatten()
                    .chain(dictionary.strings.iter().filter(|s| s.chars().count() > 1).cloned())
                    .collect();
                if !pieces.is_empty() {
                    self.pieces.insert(index, pieces.into_iter().collect());
                }
            }
            if text_form {
                let letters = dictionary::free_letters(texts.iter().copied(), dictionary);
                if !letters.is_empty() {
                    self.letters.insert(index, letters.into_iter().collect());
                }
            }
            let pools = dictionary::pools(texts, dictionary)
                .into_iter()
                .map(|(slot, tokens)| (slot, tokens.into_iter().collect()))
                .collect();
            self.texts.insert(index, (pools, text_form));
        }
        self
    }

    /// Whether `var` lies in a string argument that moves by token now.
    fn moves_by_token(&self, var: &[usize]) -> bool {
        // Plain strings keep their character moves: they reach what tokens
        // do not (a `+` inside a URL's scheme), and the grammar derives
        // them by token already.
        matches!(var.first().and_then(|i| self.texts.get(i)), Some((_, true)))
    }

    /// A token move of the text-form argument that `var` lies in; `None`
    /// when it lies in none.
    fn token_move(&mut self, current: &Value, var: &[usize]) -> Option<Value> {
        let index = *var.first()?;
        // An eighth of the time, the whole text of another text-form
        // argument: two equal arguments (or one the prefix of the other,
        // a token move later) are what a comparison of two values of a
        // type checks first, and two texts moved apart rarely meet again.
        // Counted, not collected: this runs on every token move.
        let others = || {
            self.texts
                .iter()
                .filter(move |(i, (_, text_form))| **i != index && *text_form)
                .map(|(i, _)| *i)
        };
        let count = others().count();
        if count > 0 && self.rng.random_ratio(1, 8) {
            let pick = self.rng.random_range(0..count);
            let from = others().nth(pick)?;
            let Some(Value::Str(source)) = get(current, &[from]) else {
                return None;
            };
            let source = source.clone();
            let mut out = current.clone();
            return match get_mut(&mut out, &[index]) {
                Some(Value::Str(text)) if *text != source => {
                    *text = source;
                    Some(out)
                }
                _ => None,
            };
        }
        let (pools, _) = self.texts.get(&index)?;
        let mut out = current.clone();
        let Some(Value::Str(text)) = get_mut(&mut out, &[index]) else {
            return None;
        };
        let tokens = dictionary::tokens(text);
        let at = self.rng.random_range(0..=tokens.len());
        let (slot, delete) = match tokens.get(at) {
            Some((kind, token)) => (dictionary::slot(*kind, token), self.rng.random_ratio(1, 8)),
            None => (String::new(), false),
        };
        let insert = at == tokens.len() || self.rng.random_ratio(1, 7);
        let pool: Vec<&String> = match insert {
            // Any token may be inserted.
            true => pools.values().flatten().collect(),
            false => pools.get(&slot).into_iter().flatten().collect(),
        };
        // A quarter of the time, a copy of another token of the text of the
        // same slot: a parser's check for duplicates (an extension
        // singleton or a variant twice in a language tag, a key twice)
        // needs two equal tokens, which two draws from the pools rarely
        // make at once.
        let copy: Option<String> = match tokens.get(at) {
            Some((_, here)) if !insert && !delete && self.rng.random_ratio(1, 4) => {
                let others: Vec<&str> = tokens
                    .iter()
                    .filter(|(kind, token)| token != here && dictionary::slot(*kind, token) == slot)
                    .map(|(_, token)| *token)
                    .collect();
                match others.is_empty() {
                    true => None,
                    false => Some(others[self.rng.random_range(0..others.len())].to_owned()),
                }
            }
            _ => None,
        };
        // Digits are what varies most (a day, a year): half the time, any
        // digits of the same length.
        let digits: Option<String> = match slot.strip_prefix('d') {
            Some(len) if copy.is_none() && !insert && !delete && self.rng.random_bool(0.5) => {
                let len = len.parse::<usize>().ok()?;
                Some(
                    (0..len)
                        .map(|_| char::from(b'0' + self.rng.random_range(0..10u8)))
                        .collect(),
                )
            }
            _ => None,
        };
        // A free word: half the time, any word of its letters and length
        // (a one-letter singleton where `x` was).
        let word: Option<String> = match self.letters.get(&index) {
            Some(letters)
                if slot == dictionary::LETTERS_SLOT
                    && copy.is_none()
                    && !insert
                    && !delete
                    && self.rng.random_bool(0.5) =>
            {
                let len = tokens.get(at).map_or(0, |(_, token)| token.chars().count());
                Some(
                    (0..len)
                        .map(|_| letters[self.rng.random_range(0..letters.len())])
                        .collect(),
                )
            }
            _ => None,
        };
        let with = match (delete, copy.as_ref().or(digits.as_ref()).or(word.as_ref())) {
            (true, _) => "",
            (false, Some(made)) => made.as_str(),
            (false, None) if pool.is_empty() => return None,
            (false, None) => pool[self.rng.random_range(0..pool.len())].as_str(),
        };
        let edited = dictionary::edited(text, at, with, insert && !delete);
        if edited == *text {
            return None;
        }
        *text = edited;
        Some(out)
    }

    /// Whether `var` lies in a string argument that has an item to repeat.
    fn has_item(&self, current: &Value, var: &[usize]) -> bool {
        let Some(Value::Str(text)) = var.first().and_then(|i| get(current, &[*i])) else {
            return false;
        };
        dictionary::has_repeated_item(text)
    }

    /// The string argument that `var` lies in with one of its items
    /// repeated ([`dictionary::repeated_item`]) at a separator drawn at
    /// random; `None` when it is no string or has no item to repeat there.
    fn repeat_item(&mut self, current: &Value, var: &[usize]) -> Option<Value> {
        let index = *var.first()?;
        let mut out = current.clone();
        let Some(Value::Str(text)) = get_mut(&mut out, &[index]) else {
            return None;
        };
        let separators: Vec<usize> = dictionary::tokens(text)
            .iter()
            .enumerate()
            .filter(|(_, (kind, _))| *kind == dictionary::Kind::Other)
            .map(|(i, _)| i)
            .collect();
        if separators.is_empty() {
            return None;
        }
        let at = separators[self.rng.random_range(0..separators.len())];
        *text = dictionary::repeated_item(text, at)?;
        Some(out)
    }

    /// Whether `var` lies in a plain string argument with pieces to insert.
    fn has_pieces(&self, var: &[usize]) -> bool {
        var.first().is_some_and(|i| self.pieces.contains_key(i))
    }

    /// The plain string argument that `var` lies in with one of its
    /// pieces (a fragment of its carved texts, `, <3`, or a string of the
    /// dictionary) inserted whole: between two of its tokens (a list
    /// item), or `inside` words too, between any two of its characters (a
    /// separator inside a word); `None` when it has none.
    fn insert_piece(&mut self, current: &Value, var: &[usize], inside: bool) -> Option<Value> {
        let index = *var.first()?;
        let pieces = self.pieces.get(&index)?;
        let piece = pieces.get(self.rng.random_range(0..pieces.len()))?.clone();
        let mut out = current.clone();
        let Some(Value::Str(text)) = get_mut(&mut out, &[index]) else {
            return None;
        };
        // Inside a word: a URL's scheme carved as `https` takes a `.` or
        // `+` only there once a letter after it fails the check first
        // (`httpÎ`), and that outcome has no gradient.
        if inside {
            let mut chars: Vec<char> = text.chars().collect();
            let at = self.rng.random_range(0..=chars.len());
            chars.splice(at..at, piece.chars());
            *text = chars.into_iter().collect();
            return Some(out);
        }
        let at = self.rng.random_range(0..=dictionary::tokens(text).len());
        *text = dictionary::edited(text, at, &piece, true);
        Some(out)
    }

    /// `var` of `from` moved by `delta`, inside its integer type's range;
    /// `None` when that changes nothing.
    fn moved_in_type(&self, from: &Value, var: &[usize], delta: i128) -> Option<Value> {
        let mut to = moved(from, var, delta)?;
        if let Some(kind) = self.types.int_in_args(from, var) {
            let (min, max) = kind.range();
            let leaf = get_mut(&mut to, var)?;
            let clamped = match &*leaf {
                Value::I64(n) => Value::I64(i64::try_from(i128::from(*n).clamp(min, max)).ok()?),
                Value::U64(n) => Value::U64(u64::try_from(i128::from(*n).clamp(min, max)).ok()?),
                Value::I128(n) => Value::I128((*n).clamp(min, max)),
                Value::U128(n) => Value::U128(u128::try_from(
                    i128::try_from(*n).unwrap_or(i128::MAX).clamp(min, max),
                )
                .ok()?),
                _ => return Some(to),
            };
            if get(from, var) == Some(&clamped) {
                return None;
            }
            *leaf = clamped;
        }
        Some(to)
    }

    /// Runs the alternating variable method on each uncovered goal in
    /// turn (closest first) until all are covered or the budget is spent.
    /// Returns the calls that covered goals first, with those goals.
    pub fn avm(&mut self, eval: &mut dyn Evaluate) -> Vec<(Value, Vec<u32>)> {
        let mut run = Run::new(self, eval);
        run.avm();
        run.found
    }

    /// A many-objective genetic algorithm (MOSA-style) over the archive and
    /// `population`: each generation selects parents by tournament on their
    /// best fitness for any uncovered goal, crosses value trees over and
    /// mutates them, and keeps the best per goal.
    pub fn evolve(&mut self, eval: &mut dyn Evaluate, population: usize) -> Vec<(Value, Vec<u32>)> {
        let mut run = Run::new(self, eval);
        run.evolve(population);
        run.found
    }

    /// Records calls made elsewhere (by another strategy) in the archive.
    pub fn offer_all(&mut self, individuals: Vec<Individual>) {
        for individual in individuals {
            self.offer(&individual);
        }
    }

    /// Records an evaluated call; returns the goals it covered first.
    fn offer(&mut self, individual: &Individual) -> Vec<u32> {
        self.offer_measuring(individual, None).0
    }

    /// [`Search::offer`], which also returns the call's fitness for `goal`:
    /// what the fitnesses of all goals share (how close the call came to
    /// entering each function) is then worked out once per call, not again
    /// for the goal a climb measures.
    fn offer_measuring(&mut self, individual: &Individual, goal: Option<u32>) -> (Vec<u32>, Option<Fitness>) {
        let newly: Vec<u32> = if individual.failed {
            Vec::new()
        } else {
            let uncovered = &self.uncovered;
            self.reach
                .covered_goals_among(
                    &individual.trace,
                    |id| uncovered.has(id),
                    uncovered.ids_in(self.reach.extra_goals()),
                )
                .collect()
        };
        for id in &newly {
            self.uncovered.remove(*id);
            self.archive.remove(id);
        }
        let fitnesses = self.reach.fitnesses(&individual.trace);
        // One copy of the call, shared by every goal it is the best for:
        // a copy per goal was most of the allocations of a search.
        let mut shared: Option<Rc<Individual>> = None;
        let mut of_goal = None;
        for id in self.uncovered.ids() {
            let f = fitnesses.of(id);
            if goal == Some(id) {
                of_goal = Some(f);
            }
            // A failing call at distance 0 reached the outcome without covering it.
            let usable = f.level != u32::MAX && !(individual.failed && f.covered());
            let better = self
                .archive
                .get(&id)
                .is_none_or(|(best, _)| f.better_than(*best));
            if better && usable {
                let shared = shared.get_or_insert_with(|| Rc::new(individual.clone()));
                self.archive.insert(id, (f, Rc::clone(shared)));
            }
        }
        // The goal's fitness, from the loop unless the call covered it.
        let of_goal = of_goal.or_else(|| goal.map(|goal| fitnesses.of(goal)));
        (newly, of_goal)
    }

    /// The uncovered goal climbed least so far whose best call is closest,
    /// skipping `stalled`.
    fn next_goal(&self, stalled: &BTreeSet<u32>) -> Option<u32> {
        let climbs = |id: u32| self.climbs.get(&id).copied().unwrap_or(0);
        self.uncovered
            .iter()
            .filter(|id| !stalled.contains(id))
            .filter_map(|id| self.archive.get(id).map(|(f, _)| (*id, *f)))
            .min_by(|a, b| {
                (climbs(a.0), a.1.level, a.1.distance)
                    .partial_cmp(&(climbs(b.0), b.1.level, b.1.distance))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|(id, _)| id)
    }

    /// A structural move of `current` (for `perturb`): insert or delete a
    /// character or element anywhere, switch an enum to a variant seen
    /// elsewhere, or set the character at `var` to one from the dictionary.
    fn structural_move(&mut self, current: &Value, var: &[usize]) -> Option<Value> {
        // An eighth of the time, one item of a string argument repeated
        // after itself (a list one item longer, every item of a form the
        // parser took): what a limit on the number of items needs, which
        // characters or tokens inserted one at a time reach only through
        // texts that fail in between.
        // Drawn only for a string that has one, so that the search of
        // other arguments goes as it went.
        if self.has_item(current, var) && self.rng.random_ratio(1, 8) {
            if let Some(moved) = self.repeat_item(current, var) {
                return Some(moved);
            }
        }
        // A text-form argument moves by token: characters moved one by
        // one rarely still parse.
        if self.moves_by_token(var) {
            if let Some(moved) = self.token_move(current, var) {
                return Some(moved);
            }
        }
        if self.has_pieces(var) && self.rng.random_ratio(1, 4) {
            return self.insert_piece(current, var, false);
        }
        match self.rng.random_range(0..4u32) {
            // Half of a plain string's other insertions are pieces too,
            // anywhere: list items keep their share above.
            0 if self.has_pieces(var) && self.rng.random_bool(0.5) => {
                self.insert_piece(current, var, true)
            }
            0 => self.insert_or_delete(current, var),
            1 => self.switch_variant(current),
            _ => self
                .dictionary_char()
                .and_then(|c| with_char(current, var, c)),
        }
    }

    /// A random character of the dictionary; `None` (drawing nothing) when
    /// it is empty.
    fn dictionary_char(&mut self) -> Option<char> {
        (!self.dictionary.is_empty())
            .then(|| self.dictionary[self.rng.random_range(0..self.dictionary.len())])
    }

    /// A random nonzero step of at most 2^`bits` - 1 either way.
    fn random_step(&mut self, bits: u32) -> i128 {
        let magnitude = 1i128 << self.rng.random_range(0..bits);
        match self.rng.random_range(-magnitude..=magnitude) {
            0 => 1,
            delta => delta,
        }
    }

    /// Inserts (a dictionary character, or a copy of a neighbouring element)
    /// or deletes at a random position of the string, byte string or
    /// sequence at `var`.
    fn insert_or_delete(&mut self, current: &Value, var: &[usize]) -> Option<Value> {
        let mut out = current.clone();
        let insert = self.rng.random_bool(0.5);
        let c = self.dictionary_char();
        let position = self.rng.random_range(0..=64usize);
        match get_mut(&mut out, var)? {
            Value::Str(s) => {
                let mut chars: Vec<char> = s.chars().collect();
                let at = position % (chars.len() + 1);
                if insert {
                    chars.insert(at, c.unwrap_or('a'));
                } else if at < chars.len() {
                    chars.remove(at);
                } else {
                    return None;
                }
                *s = chars.into_iter().collect();
            }
            Value::Bytes(bytes) => {
                let at = position % (bytes.len() + 1);
                if insert {
                    let c = c.and_then(|c| u8::try_from(c).ok());
                    bytes.insert(at, c.unwrap_or(b'a'));
                } else if at < bytes.len() {
                    bytes.remove(at);
                } else {
                    return None;
                }
            }
            Value::Seq(items) if !items.is_empty() => {
                let at = position % items.len();
                if insert {
                    items.insert(at, items[at].clone());
                } else {
                    items.remove(at);
                }
            }
            _ => return None,
        }
        Some(out)
    }

    /// Replaces an enum value of `current` with another variant of the same
    /// enum found in the archive (variants can only come from values seen).
    fn switch_variant(&mut self, current: &Value) -> Option<Value> {
        let paths = enum_paths(current, &self.sealed);
        if paths.is_empty() {
            return None;
        }
        let path = &paths[self.rng.random_range(0..paths.len())];
        let here = get(current, path)?;
        let mut others: Vec<Value> = Vec::new();
        let seen = self
            .archive
            .values()
            .flat_map(|(_, i)| enum_values(&i.args, &self.sealed));
        for v in seen {
            let other_variant =
                enum_name(v) == enum_name(here) && variant_name(v) != variant_name(here);
            if other_variant && !others.contains(v) {
                others.push(v.clone());
            }
        }
        if others.is_empty() {
            return None;
        }
        let replacement = others.swap_remove(self.rng.random_range(0..others.len()));
        let mut out = current.clone();
        *get_mut(&mut out, path)? = replacement;
        Some(out)
    }

    /// The arguments of the archive's calls: the GA's parents.
    fn survivors(&self) -> Vec<Value> {
        self.archive.values().map(|(_, i)| i.args.clone()).collect()
    }

    /// `population` children of parents from `pool`: tournament, crossover,
    /// mutation.
    fn offspring(&mut self, pool: &[Value], population: usize) -> Vec<Value> {
        let mut offspring = Vec::with_capacity(population);
        for _ in 0..population {
            let a = self.tournament(pool);
            let b = self.tournament(pool);
            let child = crossover(&a, &b, &self.sealed, &mut self.rng);
            offspring.push(self.mutate(&child));
        }
        offspring
    }

    /// The closer of two random members of `pool`, by their best fitness
    /// for any uncovered goal.
    fn tournament(&mut self, pool: &[Value]) -> Value {
        let a = &pool[self.rng.random_range(0..pool.len())];
        let b = &pool[self.rng.random_range(0..pool.len())];
        let score = |v: &Value| {
            self.archive
                .values()
                .filter(|(_, i)| i.args == *v)
                .map(|(f, _)| f.value())
                .fold(f64::INFINITY, f64::min)
        };
        if score(a) <= score(b) {
            a.clone()
        } else {
            b.clone()
        }
    }

    /// `value` with one random variable moved by a random step.
    fn mutate(&mut self, value: &Value) -> Value {
        let vars = variables(value, &self.sealed);
        if vars.is_empty() {
            return value.clone();
        }
        let var = vars.get(self.rng.random_range(0..vars.len()));
        if self.moves_by_token(var) {
            if let Some(moved) = self.token_move(value, var) {
                return moved;
            }
        }
        // Pieces between tokens, and as often anywhere.
        for inside in [false, true] {
            if self.has_pieces(var) && self.rng.random_ratio(1, 8) {
                if let Some(moved) = self.insert_piece(value, var, inside) {
                    return moved;
                }
            }
        }
        let delta = self.random_step(jump_bits(value, var, 16));
        self.moved_in_type(value, var, delta)
            .unwrap_or_else(|| value.clone())
    }
}

impl<'a> Run<'a> {
    /// A run of `search` whose calls go through `eval`.
    fn new(search: &'a mut Search, eval: &'a mut dyn Evaluate) -> Run<'a> {
        Run {
            search,
            eval,
            found: Vec::new(),
            repairing: false,
            evaluations: 0,
        }
    }

    /// Whether the budget is spent.
    fn exhausted(&self) -> bool {
        self.eval.exhausted()
    }

    /// Whether `goal` is still uncovered.
    fn still_uncovered(&self, goal: u32) -> bool {
        self.search.uncovered.has(goal)
    }

    /// Runs a call, records it in the archive and, if it covered goals
    /// first, in `found`; `None` when the evaluator did not run it.
    fn evaluate(&mut self, args: Value) -> Option<Individual> {
        self.evaluate_measuring(args, None).map(|(individual, _)| individual)
    }

    /// [`Run::evaluate`], with the call's fitness for `goal`.
    fn evaluate_measuring(&mut self, args: Value, goal: Option<u32>) -> Option<(Individual, Option<Fitness>)> {
        let (trace, failed) = self.eval.evaluate(&args)?;
        self.evaluations += 1;
        let individual = Individual {
            args,
            failed,
            trace,
        };
        let (newly, fitness) = self.search.offer_measuring(&individual, goal);
        if !newly.is_empty() {
            self.found.push((individual.args.clone(), newly));
        }
        Some((individual, fitness))
    }

    /// Runs a call and measures it against `goal`.
    fn point(&mut self, goal: u32, args: Value) -> Option<Point> {
        let (individual, fitness) = self.evaluate_measuring(args, Some(goal))?;
        Some(Point {
            args: individual.args,
            // Always measured: `goal` was asked for.
            fitness: fitness.unwrap_or(Fitness::WORST),
        })
    }

    /// [`Search::avm`]: climbs to each uncovered goal in turn, closest
    /// first; a goal that stalls is left until the others have had a turn.
    /// It stops early when a turn of every goal evaluated no call at all
    /// (no variable to move, every move impossible): the budget would never
    /// be spent.
    fn avm(&mut self) {
        let mut stalled: BTreeSet<u32> = BTreeSet::new();
        let mut evaluations_before_turn = self.evaluations;
        while !self.exhausted() {
            let Some(goal) = self.search.next_goal(&stalled) else {
                if stalled.is_empty() || self.evaluations == evaluations_before_turn {
                    break;
                }
                stalled.clear();
                evaluations_before_turn = self.evaluations;
                continue;
            };
            if !self.climb(goal) {
                stalled.insert(goal);
            }
        }
    }

    /// Hill-climbs towards `goal` from its best call, with perturbations
    /// when stuck. Returns whether it covered the goal.
    fn climb(&mut self, goal: u32) -> bool {
        let Some((fitness, best)) = self.search.archive.get(&goal).cloned() else {
            return false;
        };
        *self.search.climbs.entry(goal).or_default() += 1;
        let mut current = Point {
            args: best.args.clone(),
            fitness,
        };
        let mut stuck_rounds = 0;
        while !self.exhausted() && stuck_rounds < ROUNDS && self.still_uncovered(goal) {
            if self.sweep(goal, &mut current) {
                stuck_rounds = 0;
                continue;
            }
            stuck_rounds += 1;
            if let Some(next) = self.escape(goal, &current) {
                current = next;
            }
        }
        !self.still_uncovered(goal)
    }

    /// One round of the AVM: moves each variable of `current` in turn,
    /// keeping what improves. Returns whether anything did.
    fn sweep(&mut self, goal: u32, current: &mut Point) -> bool {
        let mut improved = false;
        for var in variables(&current.args, &self.search.sealed).iter() {
            if !self.still_uncovered(goal) || self.exhausted() {
                break;
            }
            if let Some(next) = self.avm_variable(goal, current, var) {
                *current = next;
                improved = true;
            }
        }
        improved
    }

    /// Iterated local search: random jumps (repaired) from the local
    /// optimum `current`. A jump that gets closer is taken at once;
    /// otherwise the last one that kept the approach level is, to move on.
    fn escape(&mut self, goal: u32, current: &Point) -> Option<Point> {
        let mut sideways = None;
        for _ in 0..PERTURBATIONS {
            if self.exhausted() || !self.still_uncovered(goal) {
                break;
            }
            if let Some(next) = self.perturb(goal, current) {
                let closer = next.fitness.better_than(current.fitness);
                sideways = Some(next);
                if closer {
                    break;
                }
            }
        }
        sideways
    }

    /// Tries one variable: an exploratory step each way; the first that
    /// gets closer is followed by secant jumps and pattern moves. `None`
    /// when neither way gets closer.
    fn avm_variable(&mut self, goal: u32, current: &Point, var: &[usize]) -> Option<Point> {
        let unit = first_step(current.fitness);
        for direction in [unit, -unit] {
            let Some(next) = self.try_move(goal, current, var, direction) else {
                continue;
            };
            if !next.fitness.better_than(current.fitness) {
                continue;
            }
            // Secant: a linear distance reaches 0 after `d / (d_before - d)` more steps.
            let slope = (current.fitness.distance - next.fitness.distance)
                / direction.unsigned_abs() as f64;
            let mut best = next;
            if best.fitness.level == current.fitness.level && slope > 0.0 {
                best = self.secant_jumps(goal, best, var, direction, slope);
            }
            // A repair is done once the enclosing condition holds again.
            if self.repairing && best.fitness.level < current.fitness.level {
                return Some(best);
            }
            return Some(self.pattern_moves(goal, best, var, direction));
        }
        None
    }

    /// Jumps `var` to where the distance, falling by `slope` per step,
    /// would be 0. Distances measured in f64 make the slope approximate:
    /// repeats the jump (either way, as the distance has no sign) while it
    /// helps.
    fn secant_jumps(
        &mut self,
        goal: u32,
        mut best: Point,
        var: &[usize],
        direction: i128,
        slope: f64,
    ) -> Point {
        while best.fitness.distance.is_finite() && !best.fitness.covered() && !self.exhausted() {
            let steps = (best.fitness.distance / slope).round();
            if !(1.0..1e38).contains(&steps) {
                break;
            }
            let jump = direction.signum() * steps as i128;
            match self.first_closer(goal, &best, var, [jump, -jump]) {
                Some(next) => best = next,
                None => break,
            }
        }
        best
    }

    /// Pattern moves: doubles the step in `direction` while it gets closer,
    /// then halves it back (either way), to land between the last steps.
    fn pattern_moves(&mut self, goal: u32, mut best: Point, var: &[usize], direction: i128) -> Point {
        let mut step = 2i128;
        while !best.fitness.covered() && !self.exhausted() {
            match self.try_move(goal, &best, var, direction * step) {
                Some(next) if next.fitness.better_than(best.fitness) => {
                    best = next;
                    step = step.saturating_mul(2);
                }
                _ => break,
            }
        }
        while step > 1 && !best.fitness.covered() && !self.exhausted() {
            step /= 2;
            if let Some(next) =
                self.first_closer(goal, &best, var, [direction * step, -direction * step])
            {
                best = next;
            }
        }
        best
    }

    /// Moves `var` of `from` by each of `deltas` in order; the first move
    /// that gets closer, if any.
    fn first_closer(
        &mut self,
        goal: u32,
        from: &Point,
        var: &[usize],
        deltas: [i128; 2],
    ) -> Option<Point> {
        deltas.into_iter().find_map(|delta| {
            self.try_move(goal, from, var, delta)
                .filter(|next| next.fitness.better_than(from.fitness))
        })
    }

    /// Moves one variable and evaluates; if the move broke an enclosing
    /// condition, repairs with a short search over the other variables.
    fn try_move(&mut self, goal: u32, from: &Point, var: &[usize], delta: i128) -> Option<Point> {
        let args = self.search.moved_in_type(&from.args, var, delta)?;
        let next = self.point(goal, args)?;
        if next.fitness.level > from.fitness.level
            && from.fitness.level != u32::MAX
            && !self.repairing
        {
            return Some(self.repair(goal, next, var, from.fitness.level));
        }
        Some(next)
    }

    /// A short descent (the same moves, without nested repairs) over the
    /// variables other than `moved_var`, back to approach level `level`.
    fn repair(&mut self, goal: u32, mut point: Point, moved_var: &[usize], level: u32) -> Point {
        self.repairing = true;
        for var in variables(&point.args, &self.search.sealed).iter() {
            if var == moved_var || var.starts_with(moved_var) || self.exhausted() {
                continue;
            }
            if let Some(next) = self.avm_variable(goal, &point, var) {
                point = next;
                if point.fitness.level <= level {
                    break;
                }
            }
        }
        self.repairing = false;
        point
    }

    /// A random jump of one variable, repaired, or a structural move;
    /// accepted if it keeps the approach level of `current`.
    fn perturb(&mut self, goal: u32, current: &Point) -> Option<Point> {
        let vars = variables(&current.args, &self.search.sealed);
        if vars.is_empty() {
            return None;
        }
        let var = vars.get(self.search.rng.random_range(0..vars.len())).to_vec();
        let next = match self.search.structural_move(&current.args, &var) {
            Some(args) => self.point(goal, args)?,
            None => {
                let delta = self.search.random_step(jump_bits(&current.args, &var, 20));
                self.try_move(goal, current, &var, delta)?
            }
        };
        (next.fitness.level <= current.fitness.level).then_some(next)
    }

    /// [`Search::evolve`]: generations of offspring from the archive until
    /// every goal is covered or the budget is spent.
    fn evolve(&mut self, population: usize) {
        let mut pool = self.search.survivors();
        while !self.exhausted() && !self.search.uncovered.is_empty() && !pool.is_empty() {
            for child in self.search.offspring(&pool, population) {
                if self.exhausted() {
                    break;
                }
                let _ = self.evaluate(child);
            }
            // Survivors: the archive's best per uncovered goal.
            pool = self.search.survivors();
        }
    }
}

/// The first step of a variable's exploratory move for a call at
/// `fitness`: distances are f64, and at 1e19 a step of 1 changes nothing
/// measurable, so it is the smallest step the distance can show.
fn first_step(fitness: Fitness) -> i128 {
    if fitness.distance.is_finite() {
        (fitness.distance / 2f64.powi(50)).max(1.0) as i128
    } else {
        1
    }
}

/// The plain [`Evaluate`]: runs calls of one target with coverage, counting
/// them up to a limit (for using search on its own, as benchmarks do).
#[cfg(any(test, feature = "_internals"))]
pub use plain::Calls;

#[cfg(any(test, feature = "_internals"))]
mod plain {
    use super::Evaluate;
    use crate::call::ArgsInput;
    use crate::coverage::{collect, Trace};
    use crate::outcome::{quietly, Outcome};
    use crate::registry::Target;
    use crate::value::Value;

    /// Runs calls of one target with coverage, up to a limit.
    pub struct Calls {
        target: &'static Target,
        /// Calls run so far.
        pub evaluations: u64,
        limit: u64,
    }

    impl Calls {
        /// At most `limit` calls of `target`.
        pub fn new(target: &'static Target, limit: u64) -> Calls {
            Calls {
                target,
                evaluations: 0,
                limit,
            }
        }
    }

    impl Evaluate for Calls {
        fn evaluate(&mut self, args: &Value) -> Option<(Trace, bool)> {
            if self.exhausted() {
                return None;
            }
            self.evaluations += 1;
            let (result, trace) = collect(|| quietly(|| (self.target.replay)(ArgsInput::Value(args))));
            let failed = !matches!(result.ok()?.observation.outcome, Outcome::Returned(_));
            Some((trace, failed))
        }

        fn exhausted(&self) -> bool {
            self.evaluations >= self.limit
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_inserted_whole_between_tokens_and_inside_words() {
        let text = "https://x.org";
        let args = |s: &str| Value::Struct("args", vec![("url", Value::Str(s.into()))]);
        let mut search = Search::new(Reach::single(&TINY), &BTreeSet::new(), Vec::new(), 1)
            .with_text_tokens(&[args(text)], &Dictionary::default());
        assert_eq!(search.pieces[&0], [".org", "/x", "/x.org"]);
        let (mut inside, mut appended, mut repeated) = (false, false, false);
        for _ in 0..400 {
            let Some(Value::Struct(_, fields)) = search.structural_move(&args(text), &[0, 2])
            else {
                continue;
            };
            let Value::Str(out) = &fields[0].1 else {
                panic!("not a string: {fields:?}");
            };
            // Other moves insert one character at most.
            if out.len() < text.len() + 2 {
                continue;
            }
            // Or repeat one item of the text (`https:/https://x.org`).
            if (0..dictionary::tokens(text).len())
                .any(|at| dictionary::repeated_item(text, at).as_deref() == Some(out.as_str()))
            {
                repeated = true;
                continue;
            }
            // One piece, whole, at one place.
            let whole = (0..=text.len()).any(|at| {
                search.pieces[&0]
                    .iter()
                    .any(|p| *out == format!("{}{p}{}", &text[..at], &text[at..]))
            });
            assert!(whole, "{out:?}");
            // A separator inside the scheme's word (`ht.orgtps://x.org`).
            let scheme = out.split("://").next().unwrap_or_default();
            inside |= scheme.starts_with('h') && !scheme.starts_with("https");
            appended |= out.starts_with(text);
        }
        assert!(
            inside && appended && repeated,
            "inside a word: {inside}, after the last token: {appended}, an item repeated: {repeated}"
        );
    }

    /// A free word of a text-form argument may become any word of its
    /// letters and length: `x` of `en-Latn-US-x-private` a one-letter
    /// singleton other than `x`, which no carved word is. Texts of keywords
    /// only (units the code compares against) keep their whole words.
    #[test]
    fn a_free_word_of_a_text_may_become_any_word_of_its_letters_and_length() {
        use crate::registry::Constant;
        use crate::value::types::Traced;
        let moved = |text: &str, dictionary: &Dictionary| {
            let args = |s: &str| Value::Struct("args", vec![("tag", Value::Str(s.into()))]);
            let mut types = ParamTypes::default();
            types.param("tag", Traced::plain(ParamType::Text { parses: |_| true }));
            let mut search = Search::new(Reach::single(&TINY), &BTreeSet::new(), Vec::new(), 1)
                .with_types(types)
                .with_text_tokens(&[args(text)], dictionary);
            let mut out = BTreeSet::new();
            for _ in 0..2000 {
                if let Some(Value::Struct(_, fields)) = search.token_move(&args(text), &[0]) {
                    if let Value::Str(s) = &fields[0].1 {
                        out.insert(s.clone());
                    }
                }
            }
            out
        };
        let x = Dictionary::of([Constant::Str("x")]);
        let texts = moved("en-Latn-US-x-private", &x);
        let singletons: Vec<&String> = texts
            .iter()
            .filter(|t| t.starts_with("en-Latn-US-") && t.ends_with("-private") && t.len() == 20 && !t.contains("-x-"))
            .collect();
        assert!(singletons.len() >= 3, "{texts:?}");
        let units = Dictionary::of([Constant::Str("h"), Constant::Str("min")]);
        let texts = moved("1h 30min", &units);
        // Words inserted beside words are fine (`1h 30hmin`); made-up ones are not.
        let keywords = |mut word: &str| loop {
            match ["h", "min"].iter().find_map(|k| word.strip_prefix(k)) {
                Some(rest) => word = rest,
                None => break word.is_empty(),
            }
        };
        assert!(
            texts.iter().all(|t| t.split(|c: char| !c.is_alphabetic()).all(keywords)),
            "{texts:?}"
        );
    }

    /// A token of a text-form argument may become a copy of another token
    /// of the text: a duplicate (`en-Latn-US-private-private`, a variant
    /// twice) that a parser rejects, which draws from a pool of hundreds of
    /// words (a registry table's rows in the dictionary) rarely make.
    #[test]
    fn a_token_may_become_a_copy_of_another_token_of_its_text() {
        use crate::value::types::Traced;
        let args = |s: &str| Value::Struct("args", vec![("tag", Value::Str(s.into()))]);
        let mut types = ParamTypes::default();
        types.param("tag", Traced::plain(ParamType::Text { parses: |_| true }));
        // 500 words of a table: `qaa`, `qab`, ...
        let strings = (0..500u32)
            .map(|i| {
                let letter = |n: u32| char::from(b'a' + u8::try_from(n % 26).unwrap_or(0));
                format!("q{}{}", letter(i / 26), letter(i))
            })
            .collect();
        let dictionary = Dictionary { strings, ..Dictionary::default() };
        let text = "en-Latn-US-x-private";
        let mut search = Search::new(Reach::single(&TINY), &BTreeSet::new(), Vec::new(), 1)
            .with_types(types)
            .with_text_tokens(&[args(text)], &dictionary);
        let mut duplicates = 0;
        for _ in 0..2000 {
            if let Some(Value::Struct(_, fields)) = search.token_move(&args(text), &[0]) {
                if let Value::Str(s) = &fields[0].1 {
                    let words: Vec<&str> = s.split('-').collect();
                    let repeated = words.iter().enumerate().any(|(i, w)| words[..i].contains(w));
                    duplicates += usize::from(repeated);
                }
            }
        }
        // About one move in ten; without copies, about one in a thousand.
        assert!(duplicates >= 50, "{duplicates} of 2000 moves repeat a word");
    }

    /// A text-form argument may become a copy of another one: two equal
    /// pre-releases (`alpha.1` and `alpha.1`), which the comparison of two
    /// values checks first, and which no token move makes of two texts
    /// that differ in more than one token.
    #[test]
    fn a_text_may_become_a_copy_of_another_text_form_argument() {
        use crate::value::types::Traced;
        let args = |a: &str, b: &str| {
            Value::Struct("args", vec![("a", Value::Str(a.into())), ("b", Value::Str(b.into()))])
        };
        let mut types = ParamTypes::default();
        types.param("a", Traced::plain(ParamType::Text { parses: |_| true }));
        types.param("b", Traced::plain(ParamType::Text { parses: |_| true }));
        let start = args("alpha.1", "beta");
        let mut search = Search::new(Reach::single(&TINY), &BTreeSet::new(), Vec::new(), 1)
            .with_types(types)
            .with_text_tokens(std::slice::from_ref(&start), &Dictionary::default());
        let mut equal = 0;
        for _ in 0..2000 {
            if let Some(Value::Struct(_, fields)) = search.token_move(&start, &[1]) {
                equal += usize::from(fields[0].1 == fields[1].1);
            }
        }
        // An eighth of the moves.
        assert!(equal >= 150, "{equal} of 2000 moves made the texts equal");
    }

    #[test]
    fn byte_strings_take_insertions_and_deletions() {
        let v = Value::Bytes(b"ab".to_vec());
        let mut search = Search::new(
            Reach::single(&TINY),
            &BTreeSet::new(),
            Vec::new(),
            1,
        )
        .with_dictionary(&[Value::Str("\u{100}Q".into())]);
        let mut lengths = BTreeSet::new();
        for _ in 0..64 {
            if let Some(Value::Bytes(b)) = search.insert_or_delete(&v, &Vec::new()) {
                assert!(b.iter().all(|c| b"abQ".contains(c)), "{b:?}");
                lengths.insert(b.len());
            }
        }
        assert_eq!(lengths, BTreeSet::from([1, 3]));
    }

    #[test]
    fn moves_stay_inside_the_traced_integer_types() {
        static SITES: crate::registry::Sites =
            crate::registry::Sites::new("c::m", "f", "f.rs", (1, 1), &[], &[]);
        let mut types = ParamTypes::default();
        types.param("small", crate::value::tracer::trace::<u8>());
        types.param("wide", crate::value::tracer::trace::<i16>());
        let search = Search::new(Reach::single(&SITES), &BTreeSet::new(), Vec::new(), 1)
            .with_types(types);
        let args = |small, wide| {
            Value::Struct(
                "args",
                vec![("small", Value::U64(small)), ("wide", Value::I64(wide))],
            )
        };
        // A jump past the end lands on the type's boundary…
        assert_eq!(search.moved_in_type(&args(250, 0), &[0], 1 << 20), Some(args(255, 0)));
        assert_eq!(
            search.moved_in_type(&args(0, -5), &[1], -(1 << 40)),
            Some(args(0, i64::from(i16::MIN)))
        );
        // …and a move from the boundary outwards is none.
        assert_eq!(search.moved_in_type(&args(255, 0), &[0], 1), None);
        assert_eq!(search.moved_in_type(&args(0, 0), &[0], -1), None);
        assert_eq!(search.moved_in_type(&args(3, 7), &[1], 2), Some(args(3, 9)));
    }

    #[test]
    fn variants_switch_to_ones_seen_in_the_archive() {
        static SITES: crate::registry::Sites =
            crate::registry::Sites::new("c::m", "f", "f.rs", (1, 1), &[], &[]);
        let ok = |n| Value::NewtypeVariant {
            name: "Result",
            index: 0,
            variant: "Ok",
            value: Box::new(Value::I64(n)),
        };
        let err = Value::NewtypeVariant {
            name: "Result",
            index: 1,
            variant: "Err",
            value: Box::new(Value::Unit),
        };
        let mut search = Search::new(Reach::single(&SITES), &BTreeSet::new(), Vec::new(), 1);
        search.archive.insert(
            0,
            (
                Fitness::ZERO,
                Rc::new(Individual {
                    args: err.clone(),
                    failed: false,
                    trace: Trace::default(),
                }),
            ),
        );
        let args = Value::Struct("args", vec![("r", ok(3))]);
        assert_eq!(
            search.switch_variant(&args),
            Some(Value::Struct("args", vec![("r", err)]))
        );
        assert_eq!(enum_paths(&args, &Sealed::default()), vec![vec![0]]);
    }

    static TINY: crate::registry::Sites =
        crate::registry::Sites::new("c::m", "f", "f.rs", (1, 1), &[], &[]);

}
