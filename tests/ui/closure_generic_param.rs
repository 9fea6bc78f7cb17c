// natord 1.0.9's `compare_iter`: closures as generic parameters, bound
// inline and in a `where` clause (with a higher-ranked lifetime).
#[carve::target]
pub fn compare_iter<T, L, Skip, ToDigit: FnOnce(&T) -> Option<isize>>(
    left: L,
    skip: Skip,
    to_digit: ToDigit,
) -> bool
where
    L: Iterator<Item = T>,
    Skip: for<'a> FnMut(&'a T) -> bool,
{
    let _ = (left, skip, to_digit);
    true
}

fn main() {}
