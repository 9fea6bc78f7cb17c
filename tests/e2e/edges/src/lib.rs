//! Kinds of labels: the target tells an empty label from the others, and
//! the helper it calls, which carve does not instrument, long labels from
//! short ones. carve's branch coverage sees only the target's branch; the
//! edge counters of `cargo carve generate` see the helper's too.

/// What kind of label `label` is.
#[cfg_attr(feature = "carve", carve::target)]
pub fn kind(label: &str) -> String {
    if label.is_empty() {
        return "empty".to_owned();
    }
    length(label)
}

/// The kind of a label no one checked is empty: no branch of its own, so
/// without the counters generation skips it.
#[cfg_attr(feature = "carve", carve::target)]
pub fn describe(label: &str) -> String {
    length(label)
}

/// Not instrumented: no branch of it is a goal of carve's own.
fn length(label: &str) -> String {
    if label.len() > 8 {
        let head: String = label.chars().take(3).collect();
        format!("long, from {head}")
    } else {
        format!("short: {label}")
    }
}
