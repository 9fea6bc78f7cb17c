//! Which edge counters are in the crate's own functions: SanitizerCoverage's
//! table of edge addresses ([`super::counters`]) gives each counter's
//! address, and the running executable's symbol table the function it lies
//! in.
//!
//! A library built with the counters also holds the code of other crates'
//! generics it uses (std's `HashMap` probing, `Vec` growth, iterator
//! adapters): monomorphized there, they get counters too, and their paths
//! can depend on more than the call (a `HashMap`'s random hasher). A
//! function is the crate's when its path starts with one of the crates'
//! names: `strsim::generic_levenshtein` (a generic of the crate, whatever
//! its type arguments), `strsim::f::{{closure}}`, `<strsim::Error as
//! core::fmt::Display>::fmt` (the crate's impl of another crate's trait),
//! `<alloc::string::String as strsim::Metric>::distance` (the crate's
//! trait on another crate's type). Another crate's generic counts too
//! when it is instantiated with the crate's types or closures, which v0
//! symbol names show (`<(u64, &semver::Prerelease) as
//! core::cmp::Ord>::cmp`), unless it is a hash table's ([`counts`]).
//!
//! ```
//! use carve::coverage::symbols::is_own;
//!
//! let crates = ["strsim".to_owned()];
//! assert!(is_own("strsim::generic_levenshtein", &crates));
//! assert!(is_own("<strsim::StrSimError as core::fmt::Display>::fmt", &crates));
//! assert!(!is_own("hashbrown::raw::RawTable<T,A>::find", &crates));
//! assert!(!is_own("strsimx::f", &crates));
//! ```

use std::collections::HashMap;
use std::fs::File;

use object::{Object, ObjectSymbol, SymbolKind};

/// A function of the executable: where it starts in the file's addresses,
/// its size (0 where the format does not tell: up to the next function),
/// and its symbol as written (mangled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Function {
    pub(crate) address: u64,
    pub(crate) size: u64,
    pub(crate) symbol: String,
}

/// Whether each of `pcs` (runtime addresses, as SanitizerCoverage's table
/// holds them) lies in a function of one of `crates`, read from the running
/// executable's symbol table. `anchor` is the runtime address of the
/// function the symbol `anchor_name` names: the difference to its address
/// in the file is where the executable was loaded. Says why when the
/// symbols cannot tell (a stripped binary).
pub(crate) fn owned(pcs: &[usize], anchor: usize, anchor_name: &str, crates: &[String]) -> Result<Vec<bool>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the running executable is not known ({e})"))?;
    let file = File::open(&exe).map_err(|e| format!("cannot read {} ({e})", exe.display()))?;
    let image = Image::of(file).map_err(|e| format!("cannot read {} ({e})", exe.display()))?;
    let object = object::File::parse(image.bytes())
        .map_err(|e| format!("cannot read the symbols of {} ({e})", exe.display()))?;
    let mut functions = Vec::new();
    let mut anchored = None;
    for symbol in object.symbols() {
        if symbol.kind() != SymbolKind::Text || !symbol.is_definition() || symbol.address() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        // Mach-O puts an underscore before C names.
        if name == anchor_name || name.strip_prefix('_') == Some(anchor_name) {
            anchored = Some(symbol.address());
        }
        functions.push(Function {
            address: symbol.address(),
            size: symbol.size(),
            symbol: name.to_owned(),
        });
    }
    if functions.is_empty() {
        return Err(format!(
            "{} has no symbol table (stripped? `strip` in the profile removes it)",
            exe.display()
        ));
    }
    let Some(in_file) = anchored else {
        return Err(format!("{} has no symbol `{anchor_name}`", exe.display()));
    };
    let bias = (anchor as u64).wrapping_sub(in_file);
    let pcs: Vec<u64> = pcs.iter().map(|&pc| (pc as u64).wrapping_sub(bias)).collect();
    Ok(own_pcs(&pcs, functions, crates))
}

/// The executable's bytes: mapped where that is possible (only the pages
/// of its headers and symbol table are read, not its debug information),
/// else read.
struct Image {
    #[cfg(unix)]
    mapped: (*mut libc::c_void, usize),
    #[cfg(not(unix))]
    read: Vec<u8>,
}

impl Image {
    #[cfg(unix)]
    fn of(file: File) -> std::io::Result<Image> {
        use std::os::fd::AsRawFd;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        if len == 0 {
            return Err(std::io::Error::other("an empty file"));
        }
        // SAFETY: a private read-only mapping of a file open for reading;
        // the file descriptor may close after it. The running executable
        // cannot be written to meanwhile (ETXTBSY).
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Image { mapped: (at, len) })
    }

    #[cfg(not(unix))]
    fn of(mut file: File) -> std::io::Result<Image> {
        use std::io::Read;
        let mut read = Vec::new();
        file.read_to_end(&mut read)?;
        Ok(Image { read })
    }

    fn bytes(&self) -> &[u8] {
        #[cfg(unix)]
        // SAFETY: the mapping lives as long as `self`.
        return unsafe { std::slice::from_raw_parts(self.mapped.0 as *const u8, self.mapped.1) };
        #[cfg(not(unix))]
        return &self.read;
    }
}

#[cfg(unix)]
impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the mapping `of` made, no longer borrowed.
        unsafe { libc::munmap(self.mapped.0, self.mapped.1) };
    }
}

/// Whether each of `pcs` (addresses in the file) lies in a function of one
/// of `crates`; a symbol is demangled once, however many counters its
/// function has.
pub(crate) fn own_pcs(pcs: &[u64], mut functions: Vec<Function>, crates: &[String]) -> Vec<bool> {
    // Aliases at one address: the one with a size, then the first by name,
    // so that the choice does not depend on the table's order.
    functions.sort_by(|a, b| (a.address, b.size, &a.symbol).cmp(&(b.address, a.size, &b.symbol)));
    functions.dedup_by_key(|f| f.address);
    let twins = twins(&functions);
    let mut decided: HashMap<usize, bool> = HashMap::new();
    pcs.iter()
        .map(|&pc| {
            let index = functions.partition_point(|f| f.address <= pc);
            let Some(index) = index.checked_sub(1) else {
                return false;
            };
            let f = &functions[index];
            if f.size != 0 && pc >= f.address.saturating_add(f.size) {
                return false;
            }
            *decided.entry(index).or_insert_with(|| {
                rustc_demangle::try_demangle(&f.symbol).is_ok_and(|path| {
                    let path = format!("{path:#}");
                    counts(&path, crates) && !in_twin(&path, &twins)
                })
            })
        })
        .collect()
}

/// The closures that hold the instrumented twins of the crates' functions:
/// the closure types `carve::_macro_support::call_outlined` is instantiated
/// with (demangled, without their hash).
///
/// A twin's counters do not count. carve records its conditions itself,
/// and its recording is inlined into the twin, where SanitizerCoverage,
/// which runs after inlining, counts its edges too: whether a slot was
/// already marked in this call, whether a comparison's goals are met.
/// Such edges are carve's state, not the call's (on semver, 130 of the 225
/// new edges that 30 kept calls reached, and all the new edges of 8 of
/// those calls), and which of them exist depends on how carve was compiled.
fn twins(functions: &[Function]) -> Vec<String> {
    let mut twins: Vec<String> = functions
        .iter()
        .filter(|f| f.symbol.contains("call_outlined"))
        .filter_map(|f| {
            let path = format!("{:#}", rustc_demangle::try_demangle(&f.symbol).ok()?);
            twin_of(&path).map(str::to_owned)
        })
        .collect();
    twins.sort();
    twins.dedup();
    twins
}

/// The closure of an instantiation of `call_outlined::<R, F>`: `F`.
///
/// ```
/// # use carve::coverage::symbols::twin_of;
/// let path = "carve::_macro_support::call_outlined::<core::result::Result<(u64, &str), semver::parse::Error>, semver::parse::numeric_identifier::{closure#0}>";
/// assert_eq!(twin_of(path), Some("semver::parse::numeric_identifier::{closure#0}"));
/// assert_eq!(twin_of("semver::parse::numeric_identifier::{closure#0}"), None);
/// ```
pub fn twin_of(path: &str) -> Option<&str> {
    let arguments = path
        .strip_prefix("carve::_macro_support::call_outlined::<")?
        .strip_suffix('>')?;
    // The last argument at depth 0: `R` may hold commas of its own.
    let mut depth = 0usize;
    let mut last = 0;
    let mut previous = ' ';
    for (i, c) in arguments.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' if previous == '-' => {}
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => last = i + 1,
            _ => {}
        }
        previous = c;
    }
    Some(arguments[last..].trim_start())
}

/// Whether `path` is a twin of `twins` or code inside one (a closure in it).
fn in_twin(path: &str, twins: &[String]) -> bool {
    twins.iter().any(|twin| {
        path.strip_prefix(twin.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
    })
}

/// Whether the counters of the function `path` (demangled, without its
/// hash) count: it is code of one of `crates` ([`is_own`]), or another
/// crate's generic instantiated with one of their types (with v0 mangling,
/// which `cargo carve generate` asks for, `<(u64, u64, u64,
/// &semver::Prerelease) as core::cmp::Ord>::cmp`: a comparison the crate
/// wrote as a tuple's), unless it is a hash table's, whose probing depends
/// on the random hasher.
///
/// ```
/// use carve::coverage::symbols::counts;
///
/// let crates = ["semver".to_owned()];
/// assert!(counts("<(u64, &semver::Prerelease) as core::cmp::Ord>::cmp", &crates));
/// assert!(!counts("<(u64, u64) as core::cmp::Ord>::cmp", &crates));
/// assert!(!counts("<hashbrown::raw::RawTable<(semver::Version, u32)>>::find", &crates));
/// ```
///
/// carve's own code does not count, though it runs inside a call: its
/// generics over the crate's types (the `format!` under a call's format
/// spec, `carve::value::format_spec::format_with::<…bs58…>`, took a
/// different path for each fill, alignment and flag: bs58 kept 387 calls
/// of a one-variant `Display::fmt` for such edges) and the glue its
/// attributes write into the crate (`…::fmt::__CARVE_TARGET::…`).
///
/// ```
/// use carve::coverage::symbols::counts;
///
/// let crates = ["bs58".to_owned()];
/// assert!(!counts("carve::value::format_spec::format_with::<<bs58::encode::Error as core::fmt::Display>::fmt::{closure#3}>", &crates));
/// assert!(counts("<bs58::encode::Error as core::fmt::Display>::fmt", &crates));
/// ```
pub fn counts(path: &str, crates: &[String]) -> bool {
    if path.contains("__CARVE_") || path.contains("::__carve_") {
        return false;
    }
    is_own(path, crates)
        || (mentions(path, crates)
            && !mentions(path, &[CARVE.to_owned()])
            && !["hashbrown::", "std::collections::hash::"]
                .iter()
                .any(|table| path.contains(table)))
}

/// carve's crate name in symbol paths.
const CARVE: &str = "carve";

/// Whether `path` names an item of one of `crates` anywhere (a type
/// argument `Vec<semver::Comparator>`), not as a module of another crate
/// (`serde::semver::x`).
fn mentions(path: &str, crates: &[String]) -> bool {
    crates.iter().any(|c| {
        path.match_indices(c.as_str()).any(|(at, _)| {
            let before = path[..at].chars().next_back();
            let starts = !before.is_some_and(|b| b.is_alphanumeric() || b == '_' || b == ':');
            starts && path[at + c.len()..].starts_with("::")
        })
    })
}

/// Whether the demangled function path `path` (without its hash) is code of
/// one of `crates`: its path starts with the crate, or, for a method of an
/// impl (`<Type as Trait>::method`, `<Type>::method`), the type's or the
/// trait's does. A reference type counts as its referent (`<&strsim::X as
/// core::fmt::Debug>`: the crate's impl for references to its type).
pub fn is_own(path: &str, crates: &[String]) -> bool {
    match impl_of(path) {
        Some((ty, tr)) => {
            let ty = ty.trim_start_matches(['&', '*']);
            let ty = ty
                .strip_prefix("mut ")
                .or_else(|| ty.strip_prefix("const "))
                .unwrap_or(ty);
            is_own(ty, crates) || tr.is_some_and(|tr| is_own(tr, crates))
        }
        None => crates.iter().any(|c| {
            path.strip_prefix(c.as_str())
                .is_some_and(|rest| rest.starts_with("::"))
        }),
    }
}

/// The type and the trait of `<Type as Trait>::…` (`<Type>::…`: no trait),
/// or `None` for a plain path.
fn impl_of(path: &str) -> Option<(&str, Option<&str>)> {
    let inner = path.strip_prefix('<')?;
    let mut depth = 0usize;
    let mut split = None;
    let mut previous = ' ';
    for (i, c) in inner.char_indices() {
        match c {
            '<' => depth += 1,
            // `->` of a function pointer type closes nothing.
            '>' if previous == '-' => {}
            '>' if depth == 0 => {
                return Some(match split {
                    Some(at) => (&inner[..at], Some(&inner[at + " as ".len()..i])),
                    None => (&inner[..i], None),
                });
            }
            '>' => depth -= 1,
            ' ' if depth == 0 && split.is_none() && inner[i..].starts_with(" as ") => split = Some(i),
            _ => {}
        }
        previous = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crates() -> Vec<String> {
        vec!["strsim".to_owned(), "semver_parser".to_owned()]
    }

    #[test]
    fn the_crates_functions_closures_generics_and_impls_are_its_own_and_other_crates_generics_are_not() {
        for own in [
            "strsim::levenshtein",
            "strsim::generic_damerau_levenshtein",
            "strsim::generic_levenshtein::<&str, &str, char>",
            "strsim::osa_distance::{{closure}}",
            "strsim::f::{closure#0}",
            "semver_parser::version::parse",
            "<strsim::StrSimError as core::fmt::Display>::fmt",
            "<strsim::Metric<T>>::new",
            "<alloc::string::String as strsim::Distance>::distance",
            "<&strsim::StrSimError as core::fmt::Debug>::fmt",
            "<&mut strsim::Chars<'_> as core::iter::Iterator>::next",
            "<<strsim::X as strsim::Y>::Z as core::fmt::Debug>::fmt",
        ] {
            assert!(is_own(own, &crates()), "{own}");
        }
        for other in [
            "hashbrown::raw::RawTable<T,A>::reserve_rehash",
            "std::collections::hash::map::HashMap<K,V,S>::insert",
            "core::ptr::drop_in_place<strsim::StrSimError>",
            "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop",
            "<T as alloc::string::ToString>::to_string",
            "<core::iter::adapters::map::Map<I,F> as core::iter::traits::iterator::Iterator>::next",
            "<fn() -> strsim::X as core::fmt::Debug>::fmt",
            "strsimilar::levenshtein",
            "strsim",
            "semver::parse",
            "<strsim::X",
        ] {
            assert!(!is_own(other, &crates()), "{other}");
        }
    }

    #[test]
    fn other_crates_generics_count_when_instantiated_with_the_crates_types_but_hash_tables_do_not() {
        for counted in [
            "<(u64, u64, u64, &semver_parser::Prerelease) as core::cmp::Ord>::cmp",
            "core::ptr::drop_in_place::<strsim::StrSimError>",
            "<alloc::vec::Vec<strsim::X>>::push",
            "strsim::levenshtein",
        ] {
            assert!(counts(counted, &crates()), "{counted}");
        }
        for other in [
            "<(u64, u64) as core::cmp::Ord>::cmp",
            "<hashbrown::raw::RawTable<(strsim::X, usize)>>::find",
            "<std::collections::hash::map::HashMap<strsim::X, usize>>::insert",
            "serde::strsim::x",
            "core::fmt::write::<mystrsim::X>",
        ] {
            assert!(!counts(other, &crates()), "{other}");
        }
    }

    #[test]
    fn carves_own_generics_and_glue_do_not_count_the_code_they_run_does() {
        for carves in [
            "carve::value::format_spec::format_with::<<strsim::X as core::fmt::Display>::fmt::{closure#3}::{closure#0}>",
            "<core::result::Result<alloc::string::String, core::fmt::Error>>::map_err::<carve::value::format_spec::FormatError, carve::value::format_spec::format_with<<strsim::X as core::fmt::Display>::fmt::{closure#3}::{closure#0}>::{closure#1}>",
            "<&carve::value::form::SameProbe<strsim::X, strsim::X> as carve::value::form::SameByDebug<strsim::X>>::same::<strsim::f::{closure#1}>",
            "<<<strsim::X as core::fmt::Display>::fmt::__CARVE_TARGET::__carve_replay::arguments as serde_core::de::Deserialize>::deserialize::__Visitor as serde_core::de::Visitor>::visit_seq::<carve::value::de::SeqAccess>",
            "strsim::levenshtein::__CARVE_TARGET::__carve_record",
        ] {
            assert!(!counts(carves, &crates()), "{carves}");
        }
        for counted in [
            "<strsim::X as core::fmt::Display>::fmt",
            "<strsim::X as core::fmt::Display>::fmt::{closure#3}::{closure#0}",
            "strsim::carve::helper",
            "<alloc::vec::Vec<strsim::X>>::push",
        ] {
            assert!(counts(counted, &crates()), "{counted}");
        }
    }

    fn function(address: u64, size: u64, symbol: &str) -> Function {
        Function {
            address,
            size,
            symbol: symbol.to_owned(),
        }
    }

    #[test]
    fn each_address_is_in_the_function_that_holds_it_and_outside_all_functions_in_none() {
        // Legacy-mangled: strsim::levenshtein, hashbrown's find, strsim::f::{{closure}}.
        let functions = vec![
            function(0x300, 0x40, "_ZN6strsim1f28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE"),
            function(0x100, 0x80, "_ZN6strsim11levenshtein17h0123456789abcdefE"),
            function(0x200, 0x40, "_ZN9hashbrown3raw4find17h0123456789abcdefE"),
            // An alias without a size at a function's address does not hide it.
            function(0x100, 0, "_ZN4core3ptr5alias17h0123456789abcdefE"),
            function(0x400, 0, "main"),
        ];
        let pcs = [0x100, 0x17f, 0x180, 0x200, 0x23f, 0x300, 0x320, 0x50, 0x400, 0x999];
        assert_eq!(
            own_pcs(&pcs, functions, &crates()),
            [true, true, false, false, false, true, true, false, false, false]
        );
    }

    /// The twin carve instruments a function in, and closures inside it,
    /// do not count; the function and its other closures do.
    #[test]
    fn the_counters_of_instrumented_twins_do_not_count() {
        // v0-mangled, as `cargo carve generate` asks for (from a semver build).
        let symbols = [
            ("_RNvNtCsiwdpInmeD40_6semver5parse10identifier", "semver::parse::identifier"),
            ("_RNCNvNtCsiwdpInmeD40_6semver5parse10identifier0B5_", "semver::parse::identifier::{closure#0}"),
            (
                "_RNCNCNvNtCsiwdpInmeD40_6semver5parse10identifier00B7_",
                "semver::parse::identifier::{closure#0}::{closure#0}",
            ),
            (
                "_RNCNvNtCsiwdpInmeD40_6semver5parse18numeric_identifiers_0B5_",
                "semver::parse::numeric_identifier::{closure#1}",
            ),
            (
                "_RINvNtCse1iKGueqFS0_5carve14__macro_support13call_outlinedINtNtCsgEmfK2I1SDS_4core6result6ResultTReB1x_ENtNtCsiwdpInmeD40_6semver5parse5ErrorENCNvB1G_10identifier0EB1I_",
                "carve::_macro_support::call_outlined::<core::result::Result<(&str, &str), semver::parse::Error>, semver::parse::identifier::{closure#0}>",
            ),
        ];
        for (symbol, path) in symbols {
            let demangled = rustc_demangle::try_demangle(symbol).ok().map(|p| format!("{p:#}"));
            assert_eq!(demangled.as_deref(), Some(path));
        }
        let functions: Vec<Function> = symbols
            .iter()
            .enumerate()
            .map(|(i, (symbol, _))| function(0x100 * (i as u64 + 1), 0x10, symbol))
            .collect();
        let pcs = [0x100, 0x200, 0x300, 0x400, 0x500];
        let crates = ["semver".to_owned()];
        assert_eq!(own_pcs(&pcs, functions, &crates), [true, false, false, true, false]);
    }
}
