#!/usr/bin/env python3
"""Field test: carve on published crates, as a new user would use it.

    python3 benches/field/field.py [crate ...]      # default: every crate below

For each crate: fetch the pinned version from crates.io, copy its source to
$FIELD_OUT/<crate> (default target/field), add the recommended feature-gated
setup, annotate its public API with `#[carve::target]` and its private
helpers with `#[carve::instrument]` (the edits are listed below, as text
insertions before lines of the pristine source), add one small system test,
then run the workflow and check each step:

    record -> replay green -> generate -> replay green -> re-record: git clean

(green but for the tests of failing inputs generation found, which fail
until someone fixes the crate or marks them expected).

Not run by CI (several minutes per crate on 2 cores). Variables: FIELD_OUT,
CARGO_TARGET_DIR (default $FIELD_OUT/target, shared by the crates),
CARVE_SEED, CARVE_BUDGET (default 2000 executions per target).
"""
import os, pathlib, re, shutil, subprocess, sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = pathlib.Path(os.environ.get("FIELD_OUT", ROOT / "target" / "field"))
TARGET = "#[cfg_attr(feature = \"carve\", carve::target)]\n"
INSTRUMENT = "#[cfg_attr(feature = \"carve\", carve::instrument)]\n"
# A serde derive a user adds to a public type that has none, so that carve
# can carve it (field.py's `serde_derive`).
SERDE = "#[cfg_attr(feature = \"carve\", derive(serde::Serialize, serde::Deserialize))]\n"

CRATES = {
    # An HTTP date parser: a `Display + FromStr` type whose Display writes
    # dates its FromStr rejects (`Sun, 31 Feb 1994`).
    "httpdate": dict(
        version="1.0.3",
        features='carve = ["dep:carve", "dep:serde"]',
        deps='serde = { version = "1", features = ["derive"], optional = true }',
        targets={
            "src/lib.rs": ["pub fn parse_http_date", "pub fn fmt_http_date"],
            "src/date.rs": ["impl From<SystemTime> for HttpDate", "impl From<HttpDate> for SystemTime", "impl FromStr for HttpDate"],
        },
        instrument={
            "src/lib.rs": ["impl Display for Error"],
            "src/date.rs": ["impl HttpDate {", "impl Display for HttpDate", "impl Ord for HttpDate", "fn toint_1", "fn toint_2",
                            "fn toint_4", "fn parse_imf_fixdate", "fn parse_rfc850_date", "fn parse_asctime", "fn is_leap_year"],
        },
        system_test='''
use httpdate::{fmt_http_date, parse_http_date, HttpDate};
use std::time::{Duration, UNIX_EPOCH};

#[carve::system_test]
fn round_trips_dates() {
    let d = UNIX_EPOCH + Duration::from_secs(1431704061);
    assert_eq!(fmt_http_date(d), "Fri, 15 May 2015 15:34:21 GMT");
    assert_eq!(parse_http_date("Fri, 15 May 2015 15:34:21 GMT").unwrap(), d);
    assert_eq!(parse_http_date("Friday, 15-May-15 15:34:21 GMT").unwrap(), d);
    assert_eq!(parse_http_date("Fri May 15 15:34:21 2015").unwrap(), d);
    assert!(parse_http_date("Fri, 15 May 2015 15:34:21 XYZ").is_err());
    let h: HttpDate = "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap();
    assert_eq!(h.to_string(), "Sun, 06 Nov 1994 08:49:37 GMT");
    assert!("Sun, 31 Feb 1994 08:49:37 GMT".parse::<HttpDate>().is_err());
}
''',
    ),
    # A duration and RFC 3339 parser and formatter: formatters return lazily
    # formatted wrappers (`FormattedDuration`), errors implement Display.
    "humantime": dict(
        version="2.4.0",
        features='carve = ["dep:carve", "dep:serde"]',
        deps='serde = { version = "1", features = ["derive"], optional = true }',
        targets={
            "src/date.rs": ["pub fn parse_rfc3339(", "pub fn parse_rfc3339_weak", "pub fn format_rfc3339(", "pub fn format_rfc3339_seconds",
                            "pub fn format_rfc3339_millis", "pub fn format_rfc3339_micros", "pub fn format_rfc3339_nanos"],
            "src/duration.rs": ["pub fn parse_duration", "pub fn format_duration"],
            "src/wrapper.rs": ["impl FromStr for Duration", "impl FromStr for Timestamp"],
        },
        instrument={
            "src/date.rs": ["impl fmt::Display for Error", "fn two_digits", "fn is_leap_year", "impl fmt::Display for Rfc3339Timestamp"],
            "src/duration.rs": ["impl fmt::Display for Error", "impl Parser<", "fn add_current", "impl FromStr for Unit", "fn item_plural",
                                "fn item(", "impl fmt::Display for FormattedDuration"],
            "src/wrapper.rs": ["impl fmt::Display for Duration", "impl fmt::Display for Timestamp"],
        },
        system_test='''
use std::time::{Duration, UNIX_EPOCH};

#[carve::system_test]
fn parses_and_formats_durations() {
    assert_eq!(humantime::parse_duration("2h 37min").unwrap(), Duration::new(9420, 0));
    assert_eq!(humantime::parse_duration("32ms").unwrap(), Duration::new(0, 32_000_000));
    assert!(humantime::parse_duration("12 lightyears").is_err());
    assert_eq!(humantime::format_duration(Duration::new(9420, 5_000_000)).to_string(), "2h 37m 5ms");
    let w: humantime::Duration = "5days".parse().unwrap();
    assert_eq!(*w, Duration::new(432000, 0));
}

#[carve::system_test]
fn parses_and_formats_timestamps() {
    let t = UNIX_EPOCH + Duration::new(1_518_563_312, 0);
    assert_eq!(humantime::parse_rfc3339("2018-02-13T23:08:32Z").unwrap(), t);
    assert_eq!(humantime::format_rfc3339(t).to_string(), "2018-02-13T23:08:32Z");
    assert_eq!(humantime::format_rfc3339_millis(t).to_string(), "2018-02-13T23:08:32.000Z");
    assert!(humantime::parse_rfc3339_weak("2018-02-13 23:08:32").is_ok());
    assert!(humantime::parse_rfc3339("2018-02-30T23:08:32Z").is_err());
}
''',
    ),
    # A version parser with serde support of its own (through serde_core) and
    # a `pub const fn` in its targeted impl block.
    "semver": dict(
        version="1.0.28",
        features='carve = ["dep:carve", "serde"]',
        deps=None,
        targets={
            "src/lib.rs": ["impl Version {", "impl VersionReq {", "impl Comparator {", "impl Prerelease {",
                           "impl BuildMetadata {"],
            # `fmt` methods carve with a format spec, so that generation
            # pads them as `{:>10}` would.
            "src/display.rs": ["impl Display for Version", "impl Display for VersionReq", "impl Display for Comparator"],
            "src/parse.rs": ["impl FromStr for Version", "impl FromStr for VersionReq", "impl FromStr for Comparator",
                             "impl FromStr for Prerelease", "impl FromStr for BuildMetadata"],
            # Pre-release and build-metadata precedence: public, and
            # `matches` reaches it too.
            "src/impls.rs": ["impl Ord for Prerelease", "impl Ord for BuildMetadata"],
        },
        instrument={
            "src/parse.rs": ["fn numeric_identifier", "fn wildcard", "fn dot", "fn identifier", "fn op(", "fn comparator", "fn version_req"],
            "src/eval.rs": ["pub(crate) fn matches_req", "pub(crate) fn matches_comparator", "fn matches_impl", "fn matches_exact",
                            "fn matches_greater", "fn matches_less", "fn matches_tilde", "fn matches_caret", "fn pre_is_compatible"],
            "src/display.rs": ["fn pad(", "fn digits"],
            "src/error.rs": ["impl Display for Error"],
        },
        system_test='''
use semver::{Version, VersionReq};

#[carve::system_test]
fn matches_requirements() {
    let req = VersionReq::parse(">=1.2.3, <1.8.0").unwrap();
    let v = Version::parse("1.4.0").unwrap();
    assert!(req.matches(&v));
    assert!(!req.matches(&Version::parse("1.8.0-alpha.1").unwrap()));
    assert!(Version::parse("1.2").is_err());
    assert_eq!(v.to_string(), "1.4.0");
}
''',
    ),
    # A language-tag parser (BCP 47): one type with many accessors over one
    # parser (`self` arrives as a string that must parse), accessors that
    # return `impl Iterator`, and serde support of its own.
    "language-tags": dict(
        version="0.3.2",
        features='carve = ["dep:carve", "serde"]',
        deps=None,
        targets={
            "src/lib.rs": ["impl LanguageTag {", "impl FromStr for LanguageTag"],
        },
        instrument={
            "src/lib.rs": ["impl fmt::Display for LanguageTag", "fn tag_from_primary_language", "fn parse_language_tag",
                           "impl<'a> Iterator for ExtensionsIterator", "impl<'a> Iterator for SubTagIterator",
                           "impl AlphanumericLowerCharSet", "fn is_alphabetic", "fn is_numeric", "fn is_alphanumeric(",
                           "fn is_alphanumeric_or_dash", "impl fmt::Display for ParseError",
                           "impl fmt::Display for ValidationError"],
        },
        system_test='''
use language_tags::LanguageTag;

#[carve::system_test]
fn parses_validates_and_matches_tags() {
    let tag = LanguageTag::parse("en-Latn-US-x-private").unwrap();
    assert_eq!(tag.primary_language(), "en");
    assert_eq!(tag.script(), Some("Latn"));
    assert_eq!(tag.region(), Some("US"));
    assert_eq!(tag.private_use(), Some("x-private"));
    let range = LanguageTag::parse("en").unwrap();
    assert!(range.matches(&tag));
    assert!(tag.validate().is_ok());
    assert_eq!(LanguageTag::parse("zh-hak").unwrap().canonicalize().unwrap().as_str(), "hak");
    assert!(LanguageTag::parse("en-").is_err());
}
''',
    ),
    # A byte-size formatter: a 2015-edition crate (no `edition` key), a
    # targeted impl block of `pub const fn`s, and a human-readable Serialize
    # of its own that is lossy (700,000 bytes written as "683.6 KiB").
    "bytesize": dict(
        version="1.3.3",
        features='carve = ["dep:carve", "serde"]',
        deps=None,
        targets={
            "src/lib.rs": ["impl ByteSize {", "pub fn to_string("],
            "src/parse.rs": ["impl std::str::FromStr for ByteSize"],
        },
        instrument={
            "src/lib.rs": ["impl Display for ByteSize"],
            "src/parse.rs": ["fn take_while", "fn skip_while", "impl Unit {"],
        },
        system_test='''
// A 2015-edition test target: extern crates are declared.
extern crate bytesize;
extern crate carve;

use bytesize::ByteSize;

#[carve::system_test]
fn formats_and_parses_sizes() {
    assert_eq!(ByteSize::kb(700).to_string_as(false), "700.0 KB");
    assert!(ByteSize::kb(700).to_string_as(true).starts_with("683.6 "));
    assert!(bytesize::to_string(1536, true).starts_with("1.5 "));
    assert_eq!("1.5 KiB".parse::<ByteSize>().unwrap().as_u64(), 1536);
    assert!("1.5 XB".parse::<ByteSize>().is_err());
}
''',
    ),
    # The held-out crate of the mutation bench (benches/field/mutants.py):
    # carve was not tried on it before. Roman numerals: two free functions
    # over i32 and &str, a 2015-edition crate without serde, a private
    # helper whose loop adds and subtracts.
    "roman": dict(
        version="0.1.6",
        features='carve = ["dep:carve", "dep:serde"]',
        deps='serde = { version = "1", features = ["derive"], optional = true }',
        targets={
            "src/lib.rs": ["pub fn to(", "pub fn from("],
        },
        instrument={
            "src/lib.rs": ["fn from_lax"],
        },
        system_test='''
extern crate carve;
extern crate roman;

#[carve::system_test]
fn converts_numerals() {
    assert_eq!(roman::to(14).unwrap(), "XIV");
    assert_eq!(roman::to(1984).unwrap(), "MCMLXXXIV");
    assert!(roman::to(0).is_none());
    assert_eq!(roman::from("XIV"), Some(14));
    assert!(roman::from("IIII").is_none());
    assert!(roman::from("i").is_none());
}
''',
    ),
    # A second held-out crate for the mutation bench, never tried before:
    # hex encoding and decoding, generic functions over `AsRef<[u8]>`
    # (carved at one instantiation each), a private digit decoder and an
    # iterator. Its own optional `serde` dependency is the one carve uses.
    "hex": dict(
        version="0.4.3",
        features='carve = ["dep:carve", "serde"]',
        deps="",
        targets={
            "src/lib.rs": [("pub fn encode<", "generics(T = &[u8])"), ("pub fn encode_upper<", "generics(T = &[u8])"),
                           ("pub fn decode<", "generics(T = &str)"), ("pub fn decode_to_slice<", "generics(T = &str)"),
                           ("pub fn encode_to_slice<", "generics(T = &[u8])")],
        },
        instrument={
            "src/lib.rs": ["impl<'a> Iterator for BytesToHexChars<'a>", "impl<'a> iter::ExactSizeIterator for BytesToHexChars<'a>",
                           "fn val(", "impl FromHex for Vec<u8>", "fn generate_iter(", "fn byte2hex("],
            "src/error.rs": ["impl fmt::Display for FromHexError"],
        },
        system_test='''
#[carve::system_test]
fn encodes_and_decodes() {
    assert_eq!(hex::encode(&b"kiwi"[..]), "6b697769");
    assert_eq!(hex::encode_upper(&[1u8, 2, 15, 16][..]), "01020F10");
    assert_eq!(hex::decode("6b697769"), Ok(b"kiwi".to_vec()));
    assert_eq!(hex::decode("123"), Err(hex::FromHexError::OddLength));
    assert!(hex::decode("zz").is_err());
    let mut bytes = [0u8; 4];
    assert_eq!(hex::decode_to_slice("6b697769", &mut bytes[..]), Ok(()));
    assert_eq!(&bytes, b"kiwi");
    let mut out = [0u8; 8];
    assert_eq!(hex::encode_to_slice(&b"kiwi"[..], &mut out[..]), Ok(()));
    assert_eq!(&out, b"6b697769");
}
''',
    ),
    # A media-type parser: `Mime` has no serde (carved as its text through
    # `Display + FromStr`), accessors return borrowed `Name`s (`Display`), a
    # generic lookup (`get_param<N: PartialEq<Name>>`) and equality with
    # text that re-parses parameters.
    "mime": dict(
        version="0.3.17",
        # Its `#![deny(warnings)]` fails the build on lints newer than it
        # (`mismatched_lifetime_syntaxes`, stable and nightly): built with
        # lints capped at warn, as cargo builds it as a dependency.
        cap_lints=True,
        # Its own suite has a unit test that fails as published (the iterator
        # parses "application/json, text/html" whole, the test expects an error).
        own_fails=["parse::test_parse_iterator_all_invalid"],
        features='carve = ["dep:carve", "dep:serde"]',
        deps='serde = { version = "1", features = ["derive"], optional = true }',
        targets={
            "src/lib.rs": ["impl Mime {", "    pub fn type_(", "    pub fn subtype(", "    pub fn suffix(",
                           ("    pub fn get_param<", "generics(N = &str)"), "    pub fn params<", "    pub fn essence_str(",
                           "impl PartialEq for Mime", "impl<'a> PartialEq<&'a str> for Mime", "impl FromStr for Mime"],
        },
        instrument={
            "src/lib.rs": ["fn eq_ascii", "fn mime_eq_str", "fn params_eq", "impl fmt::Display for FromStrError",
                           "impl fmt::Display for Mime", "fn name_eq_str", "impl<'a> Iterator for Params<'a>",
                           "impl<'a> fmt::Display for Name<'a>"],
            "src/parse.rs": ["impl fmt::Display for ParseError", "impl<'a> Iterator for MimeIter<'a>", "pub fn parse(",
                             "fn params_from_str", "fn lower_ascii_with_params", "fn is_token", "fn is_restricted_quoted_char"],
        },
        system_test='''
// A 2015-edition test target: extern crates are declared.
extern crate carve;
extern crate mime;

use mime::Mime;

#[carve::system_test]
fn parses_media_types() {
    let m: Mime = "text/plain; charset=utf-8".parse().unwrap();
    assert_eq!(m.type_(), mime::TEXT);
    assert_eq!(m.subtype(), "plain");
    assert_eq!(m.get_param("charset").unwrap(), "utf-8");
    assert!(m.get_param("boundary").is_none());
    assert_eq!(m.essence_str(), "text/plain");
    let svg: Mime = "image/svg+xml".parse().unwrap();
    assert_eq!(svg.suffix().unwrap(), "xml");
    let form: Mime = "multipart/form-data; boundary=\\"ABC DEF\\"".parse().unwrap();
    assert_eq!(form.get_param("boundary").unwrap(), "ABC DEF");
    assert!(m == "text/plain; charset=UTF-8");
    assert!(svg != form);
    assert!("text".parse::<Mime>().is_err());
    assert!("text/plain; charset".parse::<Mime>().is_err());
}
''',
    ),
    # IP networks: three types with serde of their own (as text), parsed by
    # a hand-written parser, `const fn` constructors, methods that return
    # iterators (`hosts`, `subnets`), `contains` through a trait per
    # argument type.
    "ipnet": dict(
        version="2.11.0",
        features='carve = ["dep:carve", "serde"]',
        deps=None,
        targets={
            "src/ipnet.rs": ["impl IpNet {", "impl Ipv4Net {", "impl Ipv6Net {", "impl<'a> Contains<&'a IpNet> for IpNet",
                             "impl<'a> Contains<&'a IpAddr> for IpNet", "impl<'a> Contains<&'a Ipv4Net> for Ipv4Net",
                             "impl<'a> Contains<&'a Ipv4Addr> for Ipv4Net", "impl<'a> Contains<&'a Ipv6Net> for Ipv6Net",
                             "impl<'a> Contains<&'a Ipv6Addr> for Ipv6Net", "impl Ipv4Subnets {", "impl Ipv6Subnets {",
                             "impl Iterator for IpSubnets", "impl Iterator for Ipv4Subnets", "impl Iterator for Ipv6Subnets"],
            "src/parser.rs": ["impl FromStr for IpNet", "impl FromStr for Ipv4Net", "impl FromStr for Ipv6Net"],
            "src/mask.rs": ["pub fn ip_mask_to_prefix", "pub fn ipv4_mask_to_prefix", "pub fn ipv6_mask_to_prefix"],
            # The iterators `hosts` and `subnets` return, public types with
            # a serde derive of their own under `carve` (below): stepped by
            # their own methods (`next`, `count`, `nth`, ...), as a caller
            # iterates them.
            "src/ipext.rs": ["impl Ipv4AddrRange {", "impl Ipv6AddrRange {", "impl Iterator for IpAddrRange",
                             "impl Iterator for Ipv4AddrRange", "impl Iterator for Ipv6AddrRange",
                             "impl DoubleEndedIterator for IpAddrRange", "impl DoubleEndedIterator for Ipv4AddrRange",
                             "impl DoubleEndedIterator for Ipv6AddrRange"],
        },
        serde_derive={
            "src/ipext.rs": ["pub enum IpAddrRange", "pub struct Ipv4AddrRange", "pub struct Ipv6AddrRange"],
            "src/ipnet.rs": ["pub enum IpSubnets", "pub struct Ipv4Subnets", "pub struct Ipv6Subnets"],
        },
        instrument={
            "src/ipnet.rs": ["impl fmt::Display for IpNet", "impl fmt::Display for Ipv4Net", "impl fmt::Display for Ipv6Net",
                             "fn next_ipv4_subnet", "fn next_ipv6_subnet", "fn merge_intervals"],
            "src/parser.rs": ["impl<'a> Parser<'a> {"],
            "src/ipext.rs": ["impl IpStep for Ipv4Addr", "impl IpStep for Ipv6Addr"],
        },
        system_test='''
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr};

#[carve::system_test]
fn parses_and_splits_networks() {
    let net: Ipv4Net = "10.1.1.0/24".parse().unwrap();
    assert_eq!(net.netmask(), Ipv4Addr::new(255, 255, 255, 0));
    assert!(net.contains(&"10.1.1.7".parse::<Ipv4Addr>().unwrap()));
    assert!(net.contains(&"10.1.1.128/25".parse::<Ipv4Net>().unwrap()));
    assert_eq!(net.hosts().count(), 254);
    assert_eq!(net.subnets(26).unwrap().count(), 4);
    assert!(net.subnets(8).is_err());
    assert_eq!(net.supernet().unwrap().to_string(), "10.1.0.0/23");
    assert_eq!("10.1.1.77/24".parse::<Ipv4Net>().unwrap().trunc(), net);
    let v6: Ipv6Net = "fd00::/16".parse().unwrap();
    assert_eq!(v6.trunc().prefix_len(), 16);
    let any: IpNet = "fd00:1::/32".parse().unwrap();
    assert!(any.contains(&"fd00:1::1".parse::<IpAddr>().unwrap()));
    assert!("10.1.1.0/33".parse::<IpNet>().is_err());
}
''',
    ),
}


def capped(crate, wrapper="RUSTC_WORKSPACE_WRAPPER"):
    """The environment that builds `crate` with its lints capped at warn
    (a RUSTC_WORKSPACE_WRAPPER adding `--cap-lints=warn` to the workspace's
    crates; `wrapper="RUSTC_WRAPPER"` where the crate is a path dependency,
    which cargo does not cap), for a crate whose `#![deny(warnings)]` rejects
    lints newer than it; empty for the others."""
    if not crate.get("cap_lints"):
        return {}
    path = OUT / "rustc-cap-lints"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\nexec "$@" --cap-lints=warn\n')
    path.chmod(0o755)
    return {wrapper: str(path)}


def run(cmd, cwd, env=None, check=True):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CARVE", "INSTA_")) and k != "CI"}
    full_env.update(env or {})
    print(f"$ {' '.join(cmd)}  ({' '.join(f'{k}={v}' for k, v in (env or {}).items())})", flush=True)
    p = subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.stdout.write(p.stdout[-6000:] + p.stderr[-6000:])
        raise SystemExit(f"field: {cwd.name}: `{' '.join(cmd)}` failed ({p.returncode})")
    return p


def source(name, version):
    """The pristine source of name@version, from cargo's registry cache."""
    scratch = OUT / "fetch"
    (scratch / "src").mkdir(parents=True, exist_ok=True)
    (scratch / "src" / "lib.rs").write_text("")
    deps = "\n".join(f'{n} = "={c["version"]}"' for n, c in CRATES.items())
    (scratch / "Cargo.toml").write_text(f'[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n{deps}\n[workspace]\n')
    run(["cargo", "fetch", "--quiet"], scratch)
    home = pathlib.Path(os.environ.get("CARGO_HOME", pathlib.Path.home() / ".cargo"))
    found = sorted(home.glob(f"registry/src/*/{name}-{version}"))
    if not found:
        raise SystemExit(f"field: no source of {name} {version} under {home}/registry/src")
    return found[0]


def annotate(path, heads, attribute):
    """Inserts `attribute` before each head; a head may be a pair (head,
    arguments of the target attribute), as a generic function needs
    (`generics(T = &str)`)."""
    text = path.read_text()
    for head in heads:
        marker = attribute
        if isinstance(head, tuple):
            head, arguments = head
            marker = attribute.replace("carve::target)", f"carve::target({arguments}))")
        if "\n" + head not in text:
            raise SystemExit(f"field: {path}: no line starting with {head!r}")
        text = text.replace("\n" + head, "\n" + marker + head, 1)
    path.write_text(text)


def manifest(path, crate):
    text = path.read_text()
    # Keep the package, features, lib and normal dependencies; drop the
    # crate's own tests, benches and dev-dependencies.
    kept, skip = [], False
    for line in text.splitlines():
        if line.startswith("["):
            skip = bool(re.match(r"\[\[(test|bench|example)\]\]|\[dev-dependencies", line))
        if not skip:
            kept.append(line)
    text = "\n".join(kept) + "\n"
    if "[features]" in text:
        text = text.replace("[features]", "[features]\n" + crate["features"], 1)
    else:
        text += "\n[features]\n" + crate["features"] + "\n"
    text += f'\n[dependencies.carve]\npath = "{ROOT}"\noptional = true\n'
    if crate["deps"]:
        if "\n[dependencies]\n" in text:
            text = text.replace("\n[dependencies]\n", "\n[dependencies]\n" + crate["deps"] + "\n", 1)
        else:
            text += "\n[dependencies]\n" + crate["deps"] + "\n"
    text += '\n[[test]]\nname = "carve"\nharness = false\nrequired-features = ["carve"]\n\n[workspace]\n'
    path.write_text(text)


def prepare(name, out=None):
    """Copies the pinned source of crate `name` to `out` (default
    $FIELD_OUT/<name>), annotated and with its system test, committed in a
    git repository of its own; returns the folder."""
    crate = CRATES[name]
    dir = pathlib.Path(out) if out else OUT / name
    shutil.rmtree(dir, ignore_errors=True)
    shutil.copytree(source(name, crate["version"]), dir)
    for extra in ["tests", "benches", "examples", "build.rs"]:
        p = dir / extra
        shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)
    manifest(dir / "Cargo.toml", crate)
    for file, heads in crate["targets"].items():
        annotate(dir / file, heads, TARGET)
    for file, heads in crate["instrument"].items():
        annotate(dir / file, heads, INSTRUMENT)
    for file, heads in crate.get("serde_derive", {}).items():
        annotate(dir / file, heads, SERDE)
    (dir / "tests").mkdir()
    (dir / "tests" / "carve.rs").write_text(crate["system_test"].lstrip() + "\ncarve::main!();\n")
    run(["git", "init", "-q"], dir)
    run(["git", "add", "-A"], dir)
    run(["git", "-c", "user.name=field", "-c", "user.email=field@localhost", "commit", "-qm", "annotated"], dir)
    return dir


def only_found_failures(p, name, step):
    """`p` passed, or failed only in tests of failing inputs generation
    found (a real bug of the crate: they fail until someone decides)."""
    if p.returncode == 0:
        return p
    blocks = [b for b in p.stdout.split("\n---- ")[1:]]
    if blocks and all("generation found a failing input" in b for b in blocks):
        found = sum(1 for _ in blocks)
        print(f"  {name}: {step}: {found} test(s) of failing inputs generation found fail, as they should")
        return p
    sys.stdout.write(p.stdout[-6000:] + p.stderr[-6000:])
    raise SystemExit(f"field: {name}: {step} failed ({p.returncode})")


def main():
    names = sys.argv[1:] or list(CRATES)
    env = {"CARGO_TARGET_DIR": os.environ.get("CARGO_TARGET_DIR", str(OUT / "target"))}
    seed = os.environ.get("CARVE_SEED", "1")
    budget = os.environ.get("CARVE_BUDGET", "2000")
    test = ["cargo", "test", "--features", "carve", "--test", "carve"]
    base = env
    for name in names:
        crate = CRATES[name]
        dir = prepare(name)
        env = base

        print(f"== {name} {crate['version']}", flush=True)
        env = {**env, **capped(crate)}
        record = run(test, dir, {**env, "CARVE": "record"})
        replay = run(test, dir, env)
        generate = only_found_failures(run(test, dir, {**env, "CARVE": "generate", "CARVE_SEED": seed, "CARVE_BUDGET": budget},
                                           check=False), name, "generate")
        after = only_found_failures(run(test, dir, env, check=False), name, "replay after generate")
        run(["git", "add", "-A", "carved"], dir)
        only_found_failures(run(test, dir, {**env, "CARVE": "record"}, check=False), name, "re-record")
        # What re-recording changed against what generation left (staged).
        status = run(["git", "diff", "--name-status", "--", "carved"], dir).stdout
        status += run(["git", "ls-files", "--others", "--exclude-standard", "--", "carved"], dir).stdout
        if status:
            raise SystemExit(f"field: {name}: re-recording changed carved/:\n{status}")
        for line in (record.stdout + record.stderr).splitlines():
            if line.startswith("carve:") and ("not carving" in line or "skipped" in line):
                print("  " + line)
        for line in generate.stdout.splitlines():
            if line.startswith("carve: ") and "->" in line:
                print("  " + line)
        total = [l for l in after.stdout.splitlines() if l.strip().startswith("total")]
        print(f"  after generate: {total[-1].strip() if total else '?'}")
        print(f"  {name}: record, replay, generate, replay and re-record all clean", flush=True)


if __name__ == "__main__":
    main()
