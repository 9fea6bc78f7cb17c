//! Signatures of real crates that carve's attributes must compile, each
//! in a module of its own, as a user's crate holds them. Some `main`s also
//! run what the attributes made (a table's constants, a panic's location).
//!
//! Not a trybuild pass test: those build every dependency twice in a target
//! dir of their own (112 s of CI's 20 minutes, with the compile-fail
//! tests); here they build with the other tests. No libtest harness: one
//! `main` sets the panic hook, which is the process's, so they run one
//! after the other.

// What a module only declares (a type a target takes) is what it checks,
// and its code is written as the crate it copies wrote it (a `fold`, an
// acronym in capitals): clippy's advice is for carve's own code.
#![allow(dead_code, clippy::all)]

mod arith_panic_location;
mod arithmetic;
mod borrowed_generics;
mod borrowing_deserialize;
mod format_spec;
mod generic_and_async;
mod hidden_lifetime_return;
mod instrumented_assignments;
mod lent_references;
mod moved_mut_arg;
mod parser_shapes;
mod published_shapes;
mod real_types;
mod tables_read;
mod uncarvable_methods_skipped;

/// A target's `name` without the path of `module` (as `module_path!()`
/// gives it), if the target is in that module: the checks compare names
/// as their crate would have them.
fn in_module<'a>(module: &str, name: &'a str) -> Option<&'a str> {
    let (_, path) = module.split_once("::")?;
    name.strip_prefix(path)?.strip_prefix("::")
}

fn main() {
    let checks: [(&str, fn()); 15] = [
        ("arith_panic_location", arith_panic_location::main),
        ("arithmetic", arithmetic::main),
        ("borrowed_generics", borrowed_generics::main),
        ("borrowing_deserialize", borrowing_deserialize::main),
        ("format_spec", format_spec::main),
        ("generic_and_async", generic_and_async::main),
        ("hidden_lifetime_return", hidden_lifetime_return::main),
        ("instrumented_assignments", instrumented_assignments::main),
        ("lent_references", lent_references::main),
        ("moved_mut_arg", moved_mut_arg::main),
        ("parser_shapes", parser_shapes::main),
        ("published_shapes", published_shapes::main),
        ("real_types", real_types::main),
        ("tables_read", tables_read::main),
        (
            "uncarvable_methods_skipped",
            uncarvable_methods_skipped::main,
        ),
    ];
    for (name, check) in checks {
        check();
        println!("signatures: {name} ok");
    }
}
