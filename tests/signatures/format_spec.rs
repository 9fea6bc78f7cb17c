// A `fmt` method as a target: its `&mut Formatter` is carved as the format
// spec it carries (`value::format_spec`), its outcome is the text it
// writes, and replay formats with the spec again. Every spelling of the
// formatter below is one; the run records calls made with `to_string` and
// with widths, replays them, and replays a spec no system test used.
#![deny(warnings)]

use std::fmt::{self, Display, Formatter};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
}

/// Pads as semver's `Display` does: a width longer than the text pads it,
/// on the side the alignment names.
#[carve::target]
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}.{}", self.major, self.minor);
        let Some(width) = f.width() else {
            return f.write_str(&text);
        };
        if text.len() >= width {
            return f.write_str(&text);
        }
        let padding = width - text.len();
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (padding, 0),
            Some(fmt::Alignment::Center) => (padding / 2, (padding + 1) / 2),
            _ => (0, padding),
        };
        let fill = f.fill();
        for _ in 0..before {
            write!(f, "{fill}")?;
        }
        f.write_str(&text)?;
        for _ in 0..after {
            write!(f, "{fill}")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hex(pub u32);

#[carve::target]
impl fmt::LowerHex for Hex {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        if f.alternate() {
            f.write_str("0x")?;
        }
        write!(f, "{:x}", self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Meters(pub u32);

// A marked method of a block, with the formatter under another name and
// `std::fmt::Formatter` spelled out.
#[carve::target]
impl Meters {
    #[carve::target]
    pub fn describe(&self, out: &mut std::fmt::Formatter<'_>, unit: &str) -> std::fmt::Result {
        match out.precision() {
            Some(p) => write!(out, "{:.*} {unit}", p, self.0 as f64),
            None => write!(out, "{} {unit}", self.0),
        }
    }
}

/// A type carved by its text (`Display + FromStr`, no serde): its own
/// `Display` is a target, and capturing its `self` (by that `Display`)
/// is no call of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag(String);

impl std::str::FromStr for Tag {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Tag(s.to_owned()))
    }
}

#[carve::target]
impl Display for Tag {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "<{}>", self.0)
        } else {
            f.pad(&self.0)
        }
    }
}

impl Display for Meters {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.describe(f, "m")
    }
}

pub fn main() {
    use carve::_internals::call::ArgsInput;
    use carve::_internals::carving::record;
    use carve::_internals::outcome::Outcome;
    record::start();
    record::record_test("formats", || {
        let v = Version { major: 1, minor: 4 };
        assert_eq!(v.to_string(), "1.4");
        assert_eq!(
            format!("{v:*>6}"),
            "***1.4",
            "the test's own output is the call's"
        );
        assert_eq!(format!("{:#x}", Hex(255)), "0xff");
        assert_eq!(format!("{:.1}", Meters(3)), "3.0 m");
        assert_eq!(format!("{:#}", Tag("en".into())), "<en>");
        // A fill carve does not replay: the call runs as written, uncarved.
        assert_eq!(format!("{v:x<5}"), "1.4xx");
    });
    let recordings = record::stop();
    let calls: Vec<_> = recordings.iter().flat_map(|r| &r.calls).collect();
    let carved: Vec<(String, String)> = calls
        .iter()
        .filter_map(|c| {
            Some((
                crate::in_module(module_path!(), &c.target.name())?.to_owned(),
                ron::to_string(&c.args).unwrap(),
            ))
        })
        .collect();
    let spec = |fill: &str, align: &str, alternate: bool, width: &str, precision: &str| {
        format!(
            "(fill:{fill},align:{align},sign_plus:false,alternate:{alternate},zero_pad:false,width:{width},precision:{precision})"
        )
    };
    assert_eq!(
        carved,
        [
            (
                "Version::Display::fmt".to_owned(),
                format!(
                    "(self:(major:1,minor:4),f:{})",
                    spec("Space", "None", false, "None", "None")
                )
            ),
            (
                "Version::Display::fmt".to_owned(),
                format!(
                    "(self:(major:1,minor:4),f:{})",
                    spec("Star", "Some(Right)", false, "Some(6)", "None")
                )
            ),
            (
                "Hex::LowerHex::fmt".to_owned(),
                format!(
                    "(self:(255),f:{})",
                    spec("Space", "None", true, "None", "None")
                )
            ),
            (
                "Meters::describe".to_owned(),
                format!(
                    "(self:(3),out:{},unit:\"m\")",
                    spec("Space", "None", false, "None", "Some(1)")
                )
            ),
            (
                "Tag::Display::fmt".to_owned(),
                format!(
                    "(self:\"en\",f:{})",
                    spec("Space", "None", true, "None", "None")
                )
            ),
        ]
    );
    let outcomes: Vec<String> = calls
        .iter()
        .map(|c| match &c.observation.outcome {
            Outcome::Returned(v) => ron::to_string(v).unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            "Ok(\"1.4\")",
            "Ok(\"***1.4\")",
            "Ok(\"0xff\")",
            "Ok(\"3.0 m\")",
            "Ok(\"<en>\")"
        ]
    );
    // Replay formats with the carved spec, and any other.
    for (call, outcome) in calls.iter().zip(&outcomes) {
        let args = ron::to_string(&call.args).unwrap();
        let replayed = (call.target.replay)(ArgsInput::Ron(&args)).unwrap();
        assert_eq!(
            replayed.observation, call.observation,
            "{args} -> {outcome}"
        );
    }
    let version = calls[0].target;
    let centered = format!(
        "(self:(major:10,minor:0),f:{})",
        spec("Dash", "Some(Center)", false, "Some(9)", "None")
    );
    let replayed = (version.replay)(ArgsInput::Ron(&centered)).unwrap();
    match replayed.observation.outcome {
        Outcome::Returned(v) => assert_eq!(ron::to_string(&v).unwrap(), "Ok(\"--10.0---\")"),
        other => panic!("{other:?}"),
    }
}
