// wildmatch 2.4's `impl<const MULTI_WILDCARD: char, const SINGLE_WILDCARD:
// char> WildMatchPattern<…>`: the example binds both parameters, to values
// of their type.
pub struct Pattern<const MULTI: char, const SINGLE: char>(Vec<char>);

#[carve::target]
impl<const MULTI: char, const SINGLE: char> Pattern<MULTI, SINGLE> {
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

fn main() {}
