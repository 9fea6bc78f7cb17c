//! How far a call is from a goal: the approach level (control-dependence
//! levels between the closest point the call reached and the goal) and the
//! branch distance where it diverged. Search minimizes it; [`goals`] and
//! [`reach`] compute it for their goals.
//!
//! [`goals`]: crate::coverage::goals
//! [`reach`]: crate::coverage::reach

use crate::coverage::{normalize, Distances};
use crate::registry::Sites;

/// How far a call is from a goal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fitness {
    /// Control-dependence levels (and call steps) between the closest
    /// reached point and the goal.
    pub level: u32,
    /// Raw branch distance at the point of divergence.
    pub distance: f64,
}

impl Fitness {
    #[cfg(any(test, feature = "_internals"))]
    /// Covered.
    pub const ZERO: Fitness = Fitness {
        level: 0,
        distance: 0.0,
    };
    /// Not evaluable (arguments did not fit, or no known path leads to the
    /// goal's function).
    pub const WORST: Fitness = Fitness {
        level: u32::MAX,
        distance: f64::INFINITY,
    };

    /// approach level + d/(d+1): smaller is better, 0 is covered.
    ///
    /// ```
    /// use carve::coverage::fitness::Fitness;
    /// let close = Fitness { level: 0, distance: 3.0 };
    /// let far = Fitness { level: 1, distance: 0.5 };
    /// assert!(close.value() < far.value());
    /// assert_eq!(close.value(), 0.75);
    /// ```
    pub fn value(self) -> f64 {
        f64::from(self.level) + normalize(self.distance)
    }

    /// Whether `self` is closer than `other`. Compares level, then raw
    /// distance: normalized distances of 1e19 and 2e19 are both 1.0 in f64.
    pub fn better_than(self, other: Fitness) -> bool {
        (self.level, self.distance).partial_cmp(&(other.level, other.distance))
            == Some(std::cmp::Ordering::Less)
    }

    /// Whether the goal is covered.
    pub fn covered(self) -> bool {
        self.level == 0 && self.distance == 0.0
    }

    /// `levels` further away.
    pub(crate) fn deeper(self, levels: u32) -> Fitness {
        Fitness {
            level: self.level.saturating_add(levels),
            distance: self.distance,
        }
    }
}

/// The fitness of a call (its `trace`) for branch `id` of `sites`, within
/// that function: when the call reached no ancestor of `id`, one level above
/// the function's top-level branches, at infinite distance.
pub fn fitness_within(sites: &Sites, id: u32, trace: &impl Distances) -> Fitness {
    let mut level = 0;
    let mut node = id;
    loop {
        if let Some(distance) = trace.distance(sites, node) {
            return Fitness { level, distance };
        }
        match sites.branches[node as usize].parent() {
            Some(parent) => {
                level += 1;
                node = parent;
            }
            None => {
                return Fitness {
                    level: level + 1,
                    distance: f64::INFINITY,
                }
            }
        }
    }
}
