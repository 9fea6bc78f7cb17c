"""Hand-written libFuzzer harnesses over the public functions carve targets
in each field crate (benches/field/field.py), for the effectiveness bench.

Each harness is a Rust function `one(data: &[u8])`: the first byte picks a
public function, the rest is its argument (text, or little-endian numbers);
two-text functions split the text at the first newline. Parse errors and
returned values are formatted, as carve formats a returned value or error
by its `Display`. Times stay at or below the year 9999, where the crates'
formatters fail by contract, so that a run is not ended by a known panic.
The seeds are the system test's inputs, as (function byte, argument).
"""
import struct

# The fuzz crate cargo-fuzz builds, beside the crate `name` it depends on.
FUZZ_MANIFEST = """[package]
name = "{name}-fuzz"
version = "0.0.0"
publish = false
edition = "2021"

[package.metadata]
cargo-fuzz = true

[dependencies]
libfuzzer-sys = "0.4"
{name} = {{ path = ".." }}

[[bin]]
name = "target"
path = "fuzz_targets/target.rs"
test = false
doc = false
bench = false

[workspace]
"""

PRELUDE = """#[allow(unused_imports)]
use std::time::{Duration, UNIX_EPOCH};

/// The function byte and the argument bytes.
fn split(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&which, rest)) => (which, rest),
        None => (0, &[]),
    }
}

/// The first eight bytes as a little-endian number (zeros past the end).
#[allow(dead_code)]
fn num(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// A time up to the end of the year 9999, from sixteen bytes.
#[allow(dead_code)]
fn time(bytes: &[u8]) -> std::time::SystemTime {
    let nanos = (num(bytes.get(8..).unwrap_or(&[])) % 1_000_000_000) as u32;
    UNIX_EPOCH + Duration::new(num(bytes) % 253_402_300_800, nanos)
}
"""


def text(which, s):
    return bytes([which]) + s.encode()


def numbers(which, *ns):
    return bytes([which]) + b"".join(struct.pack("<Q", n) for n in ns)


HARNESSES = {
    "httpdate": dict(
        body="""
pub fn one(data: &[u8]) {
    let (which, rest) = split(data);
    let text = std::str::from_utf8(rest).ok();
    match which % 4 {
        0 => if let Some(s) = text { let _ = httpdate::parse_http_date(s).map_err(|e| e.to_string()); },
        1 => if let Some(s) = text {
            if let Ok(d) = s.parse::<httpdate::HttpDate>() {
                let _ = d.to_string();
                let _ = std::time::SystemTime::from(d);
            }
        },
        2 => { let _ = httpdate::fmt_http_date(time(rest)); }
        _ => {
            let d = httpdate::HttpDate::from(time(rest));
            let _ = d.to_string();
            let _ = d.cmp(&httpdate::HttpDate::from(time(rest.get(16..).unwrap_or(&[]))));
        }
    }
}
""",
        seeds=[text(0, "Fri, 15 May 2015 15:34:21 GMT"), text(0, "Friday, 15-May-15 15:34:21 GMT"),
               text(0, "Fri May 15 15:34:21 2015"), text(0, "Fri, 15 May 2015 15:34:21 XYZ"),
               text(1, "Sun, 06 Nov 1994 08:49:37 GMT"), text(1, "Sun, 31 Feb 1994 08:49:37 GMT"),
               numbers(2, 1431704061, 0)],
    ),
    "humantime": dict(
        body="""
pub fn one(data: &[u8]) {
    let (which, rest) = split(data);
    let text = std::str::from_utf8(rest).ok();
    let t = time(rest);
    match which % 10 {
        0 => if let Some(s) = text { let _ = humantime::parse_duration(s).map_err(|e| e.to_string()); },
        1 => if let Some(s) = text { let _ = humantime::parse_rfc3339(s).map_err(|e| e.to_string()); },
        2 => if let Some(s) = text { let _ = humantime::parse_rfc3339_weak(s).map_err(|e| e.to_string()); },
        3 => if let Some(s) = text {
            let _ = s.parse::<humantime::Duration>().map(|d| d.to_string()).map_err(|e| e.to_string());
        },
        4 => if let Some(s) = text {
            let _ = s.parse::<humantime::Timestamp>().map(|t| t.to_string()).map_err(|e| e.to_string());
        },
        5 => {
            let nanos = (num(rest.get(8..).unwrap_or(&[])) % 1_000_000_000) as u32;
            let _ = humantime::format_duration(Duration::new(num(rest), nanos)).to_string();
        }
        6 => { let _ = humantime::format_rfc3339(t).to_string(); }
        7 => { let _ = humantime::format_rfc3339_seconds(t).to_string(); }
        8 => { let _ = humantime::format_rfc3339_millis(t).to_string(); }
        _ => {
            let _ = humantime::format_rfc3339_micros(t).to_string();
            let _ = humantime::format_rfc3339_nanos(t).to_string();
        }
    }
}
""",
        seeds=[text(0, "2h 37min"), text(0, "32ms"), text(0, "12 lightyears"), text(3, "5days"),
               numbers(5, 9420, 5_000_000), text(1, "2018-02-13T23:08:32Z"), numbers(6, 1_518_563_312, 0),
               numbers(8, 1_518_563_312, 0), text(2, "2018-02-13 23:08:32"), text(1, "2018-02-30T23:08:32Z")],
    ),
    "semver": dict(
        body="""
pub fn one(data: &[u8]) {
    let (which, rest) = split(data);
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (a, b) = text.split_once('\\n').unwrap_or((text, ""));
    match which % 7 {
        0 => { let _ = semver::Version::parse(a).map(|v| v.to_string()).map_err(|e| e.to_string()); }
        1 => { let _ = semver::VersionReq::parse(a).map(|r| r.to_string()).map_err(|e| e.to_string()); }
        2 => { let _ = semver::Comparator::parse(a).map(|c| c.to_string()).map_err(|e| e.to_string()); }
        3 => if let (Ok(r), Ok(v)) = (semver::VersionReq::parse(a), semver::Version::parse(b)) {
            let _ = r.matches(&v);
        },
        4 => if let (Ok(c), Ok(v)) = (semver::Comparator::parse(a), semver::Version::parse(b)) {
            let _ = c.matches(&v);
        },
        5 => if let (Ok(x), Ok(y)) = (semver::Version::parse(a), semver::Version::parse(b)) {
            let _ = x.cmp_precedence(&y);
            let _ = x.cmp(&y);
        },
        _ => {
            let v = semver::Version::new(num(rest), num(rest.get(8..).unwrap_or(&[])), num(rest.get(16..).unwrap_or(&[])));
            let _ = v.to_string();
        }
    }
}
""",
        seeds=[text(1, ">=1.2.3, <1.8.0"), text(0, "1.4.0"), text(3, ">=1.2.3, <1.8.0\n1.4.0"),
               text(3, ">=1.2.3, <1.8.0\n1.8.0-alpha.1"), text(0, "1.8.0-alpha.1"), text(0, "1.2")],
    ),
    "language-tags": dict(
        body="""
pub fn one(data: &[u8]) {
    let (which, rest) = split(data);
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (a, b) = text.split_once('\\n').unwrap_or((text, ""));
    let tag = match language_tags::LanguageTag::parse(a) {
        Ok(tag) => tag,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    match which % 4 {
        0 => {
            let _ = (tag.primary_language(), tag.extended_language(), tag.extended_language_subtags().count(),
                     tag.full_language(), tag.script(), tag.region(), tag.variant(), tag.variant_subtags().count(),
                     tag.extension(), tag.extension_subtags().count(), tag.private_use(),
                     tag.private_use_subtags().count(), tag.to_string(), tag.as_str().len());
        }
        1 => {
            let _ = tag.validate().map_err(|e| e.to_string());
            let _ = tag.is_valid();
        }
        2 => { let _ = tag.canonicalize().map(|t| t.to_string()).map_err(|e| e.to_string()); }
        // `matches` asserts that `self` is a language range.
        _ => if let (true, Ok(other)) = (tag.is_language_range(), language_tags::LanguageTag::parse(b)) {
            let _ = tag.matches(&other);
        },
    }
}
""",
        seeds=[text(0, "en-Latn-US-x-private"), text(3, "en\nen-Latn-US-x-private"), text(1, "en-Latn-US-x-private"),
               text(2, "zh-hak"), text(0, "en-")],
    ),
    "roman": dict(
        body="""
pub fn one(data: &[u8]) {
    let (which, rest) = split(data);
    match which % 2 {
        0 => if let Ok(s) = std::str::from_utf8(rest) { let _ = roman::from(s); },
        _ => { let _ = roman::to(num(rest) as u32 as i32); }
    }
}
""",
        seeds=[numbers(1, 14), numbers(1, 1984), numbers(1, 0), text(0, "XIV"), text(0, "IIII"), text(0, "i")],
    ),
    "bytesize": dict(
        body="""
pub fn one(data: &[u8]) {
    use bytesize::ByteSize;
    let (which, rest) = split(data);
    let n = num(rest);
    let si = rest.get(8).map_or(false, |b| b & 1 == 1);
    match which % 5 {
        0 => if let Ok(s) = std::str::from_utf8(rest) {
            let _ = s.parse::<ByteSize>().map(|b| b.as_u64()).map_err(|e| e.to_string());
        },
        1 => { let _ = bytesize::to_string(n, si); }
        2 => { let _ = ByteSize::b(n).to_string_as(si); }
        3 => { let _ = ByteSize::b(n).to_string(); }
        _ => {
            // Small enough that no unit overflows.
            let k = n % 1024;
            for size in [ByteSize::kb(k), ByteSize::kib(k), ByteSize::mb(k), ByteSize::mib(k), ByteSize::gb(k),
                         ByteSize::gib(k), ByteSize::tb(k), ByteSize::tib(k), ByteSize::pb(k), ByteSize::pib(k)] {
                let _ = size.to_string_as(si);
            }
        }
    }
}
""",
        seeds=[numbers(4, 700), numbers(2, 700_000, 1), numbers(1, 1536, 1), text(0, "1.5 KiB"), text(0, "1.5 XB")],
    ),
    "mime": dict(
        body="""
pub fn one(data: &[u8]) {
    use mime::Mime;
    let (which, rest) = split(data);
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (a, b) = text.split_once('\\n').unwrap_or((text, ""));
    let m = match a.parse::<Mime>() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    match which % 3 {
        0 => {
            let _ = (m.type_().to_string(), m.subtype().to_string(), m.suffix().map(|s| s.to_string()),
                     m.get_param(b).map(|v| v.to_string()), m.params().count(), m.essence_str().len(), m.to_string());
        }
        1 => if let Ok(other) = b.parse::<Mime>() {
            let _ = m == other;
        },
        _ => { let _ = m == b; }
    }
}
""",
        seeds=[text(0, "text/plain; charset=utf-8\ncharset"), text(0, "text/plain; charset=utf-8\nboundary"),
               text(0, "image/svg+xml"), text(0, "multipart/form-data; boundary=\"ABC DEF\"\nboundary"),
               text(2, "text/plain; charset=utf-8\ntext/plain; charset=UTF-8"), text(1, "image/svg+xml\nmultipart/form-data; boundary=\"ABC DEF\""),
               text(0, "text"), text(0, "text/plain; charset")],
    ),
    "ipnet": dict(
        body="""
pub fn one(data: &[u8]) {
    use ipnet::{IpNet, Ipv4Net, Ipv6Net};
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let (which, rest) = split(data);
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (a, b) = text.split_once('\\n').unwrap_or((text, ""));
    let len = b.bytes().next().unwrap_or(0);
    match which % 6 {
        0 => match a.parse::<IpNet>() {
            Ok(n) => {
                let _ = (n.trunc(), n.addr(), n.prefix_len(), n.max_prefix_len(), n.netmask(), n.hostmask(), n.network(),
                         n.broadcast(), n.supernet(), n.to_string());
                let mut hosts = n.hosts();
                let _ = (hosts.next(), hosts.next_back());
                if hosts.size_hint().1.is_some() {
                    let _ = hosts.count();
                }
                let _ = (hosts.last(), Iterator::max(hosts), Iterator::min(hosts), hosts.nth(len as usize), hosts.nth_back(len as usize));
                let _ = n.subnets(len).map(|s| s.take(4).count()).map_err(|e| e.to_string());
                let _ = IpNet::new(n.addr(), len).map_err(|e| e.to_string());
                let _ = IpNet::with_netmask(n.addr(), n.netmask());
            }
            Err(e) => { let _ = e.to_string(); }
        },
        1 => if let Ok(n) = a.parse::<Ipv4Net>() {
            let _ = (n.trunc(), n.netmask(), n.hostmask(), n.network(), n.broadcast(), n.supernet(), n.to_string());
            let mut hosts = n.hosts();
            let _ = (hosts.next(), hosts.next_back());
            let _ = (hosts.count(), hosts.last(), Iterator::max(hosts), Iterator::min(hosts), hosts.nth(len as usize),
                     hosts.nth_back(len as usize), hosts.size_hint());
            let _ = n.subnets(len).map(|s| s.take(4).count());
            // A prefix length past the address's panics in `next`, by contract.
            let _ = ipnet::Ipv4Subnets::new(n.network(), n.broadcast(), len.min(32)).take(4).count();
            let _ = Ipv4Net::new(n.addr(), len);
            let _ = Ipv4Net::with_netmask(n.addr(), n.netmask());
        },
        2 => if let Ok(n) = a.parse::<Ipv6Net>() {
            let _ = (n.trunc(), n.netmask(), n.hostmask(), n.network(), n.broadcast(), n.supernet(), n.to_string());
            let mut hosts = n.hosts();
            let _ = (hosts.next(), hosts.next_back());
            // `count` panics past usize::MAX, by contract.
            if hosts.size_hint().1.is_some() {
                let _ = hosts.count();
            }
            let _ = (hosts.last(), Iterator::max(hosts), Iterator::min(hosts), hosts.nth(len as usize), hosts.nth_back(len as usize));
            let _ = n.subnets(len).map(|s| s.take(4).count());
            let _ = ipnet::Ipv6Subnets::new(n.network(), n.broadcast(), len.min(128)).take(4).count();
            let _ = Ipv6Net::new(n.addr(), len);
            let _ = Ipv6Net::with_netmask(n.addr(), n.netmask());
        },
        3 => if let Ok(n) = a.parse::<IpNet>() {
            if let Ok(other) = b.parse::<IpNet>() {
                let _ = (n.contains(&other), n.is_sibling(&other));
            }
            if let Ok(addr) = b.parse::<IpAddr>() {
                let _ = n.contains(&addr);
            }
        },
        4 => {
            let nets: Vec<IpNet> = text.lines().filter_map(|l| l.parse().ok()).collect();
            let _ = IpNet::aggregate(&nets);
        }
        _ => {
            if let Ok(addr) = a.parse::<IpAddr>() { let _ = ipnet::ip_mask_to_prefix(addr); }
            if let Ok(addr) = a.parse::<Ipv4Addr>() { let _ = ipnet::ipv4_mask_to_prefix(addr); }
            if let Ok(addr) = a.parse::<Ipv6Addr>() { let _ = ipnet::ipv6_mask_to_prefix(addr); }
        }
    }
}
""",
        seeds=[text(1, "10.1.1.0/24\n\x1a"), text(1, "10.1.1.0/24\n\x08"), text(3, "10.1.1.0/24\n10.1.1.7"),
               text(3, "10.1.1.0/24\n10.1.1.128/25"), text(1, "10.1.1.77/24"), text(2, "fd00::/16"),
               text(3, "fd00:1::/32\nfd00:1::1"), text(0, "10.1.1.0/33")],
    ),
}
