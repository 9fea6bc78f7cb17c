//! The constants and statics a function body reads (`GRANDFATHEREDS`,
//! `iana::VARIANTS`), whose contents the runtime offers generation as a
//! dictionary (`carve::coverage::tables`).
//!
//! Only paths that mean the same at the top of the body as where they are
//! used are named: a `SCREAMING_CASE` last segment, no `Self`, no generic
//! arguments, no qualified self, outside `unsafe` blocks (a `static mut` is
//! read only there), and no segment named by anything the body declares
//! (a binding, a local item, a `use`, an item a macro call declares). A body
//! with a glob `use` or an `unsafe fn`'s body names none.

use std::collections::BTreeSet;

use syn::visit::Visit;
use syn::{Block, Expr, ExprPath};

/// At most this many are named per function.
const MAX_TABLES: usize = 16;

/// The paths of the constants and statics `block` reads, each once, in the
/// order first read.
pub fn read_by(block: &Block, is_unsafe: bool) -> Vec<syn::Path> {
    if is_unsafe {
        return Vec::new();
    }
    let mut finder = Finder::default();
    finder.visit_block(block);
    if finder.glob {
        return Vec::new();
    }
    let mut seen = BTreeSet::new();
    finder
        .paths
        .into_iter()
        .filter(|path| {
            path.segments
                .iter()
                .all(|s| !finder.declared.contains(&s.ident.to_string()))
        })
        .filter(|path| seen.insert(quote::quote!(#path).to_string()))
        .take(MAX_TABLES)
        .collect()
}

/// Whether `name` reads as a constant's (`MAX_LEN`, `TABLE2`).
fn is_screaming(name: &str) -> bool {
    name.len() >= 2
        && name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[derive(Default)]
struct Finder {
    paths: Vec<syn::Path>,
    declared: BTreeSet<String>,
    glob: bool,
    /// Inside an `unsafe` block.
    unsafe_depth: usize,
}

impl Finder {
    fn declare(&mut self, ident: &syn::Ident) {
        self.declared.insert(ident.to_string());
    }

    fn use_tree(&mut self, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => self.use_tree(&p.tree),
            syn::UseTree::Name(n) => self.declare(&n.ident),
            syn::UseTree::Rename(r) => self.declare(&r.rename),
            syn::UseTree::Glob(_) => self.glob = true,
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(t)),
        }
    }

    /// Names a macro call may declare: each identifier after `static`,
    /// `const`, `let`, `fn`, `struct` or `enum` in its tokens.
    fn macro_declarations(&mut self, tokens: proc_macro2::TokenStream) {
        let mut after_keyword = false;
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Group(g) => self.macro_declarations(g.stream()),
                proc_macro2::TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    if after_keyword && name != "mut" {
                        self.declared.insert(name.clone());
                    }
                    after_keyword = matches!(
                        name.as_str(),
                        "static" | "const" | "let" | "fn" | "struct" | "enum" | "mut"
                    ) && (name != "mut" || after_keyword);
                }
                _ => after_keyword = false,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if let Expr::Unsafe(block) = expr {
            self.unsafe_depth += 1;
            syn::visit::visit_expr_unsafe(self, block);
            self.unsafe_depth -= 1;
            return;
        }
        if let Expr::Path(ExprPath {
            qself: None, path, ..
        }) = expr
        {
            let plain = path.segments.iter().all(|s| s.arguments.is_none())
                && path.segments.first().is_some_and(|s| s.ident != "Self");
            let last = path.segments.last().map(|s| s.ident.to_string());
            if self.unsafe_depth == 0 && plain && last.as_deref().is_some_and(is_screaming) {
                self.paths.push(path.clone());
            }
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        self.declare(&pat.ident);
        syn::visit::visit_pat_ident(self, pat);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        // A local item is declared; what is inside it is its own scope.
        match item {
            syn::Item::Const(i) => self.declare(&i.ident),
            syn::Item::Static(i) => self.declare(&i.ident),
            syn::Item::Fn(i) => self.declare(&i.sig.ident),
            syn::Item::Struct(i) => self.declare(&i.ident),
            syn::Item::Enum(i) => self.declare(&i.ident),
            syn::Item::Mod(i) => self.declare(&i.ident),
            syn::Item::Type(i) => self.declare(&i.ident),
            syn::Item::Union(i) => self.declare(&i.ident),
            syn::Item::Trait(i) => self.declare(&i.ident),
            syn::Item::Use(i) => self.use_tree(&i.tree),
            syn::Item::Macro(m) => self.macro_declarations(m.mac.tokens.clone()),
            _ => {}
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.macro_declarations(mac.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(body: &str) -> Vec<String> {
        let block: Block = syn::parse_str(body).expect("a block");
        read_by(&block, false)
            .iter()
            .map(|p| quote::quote!(#p).to_string().replace(' ', ""))
            .collect()
    }

    #[test]
    fn constants_read_in_the_body_are_named_once() {
        assert_eq!(
            names(
                "{ if is_in(&GRANDFATHEREDS, s) { return iana::VARIANTS.len(); } \
                   let n = MAX_LEN + MAX_LEN; x.iter().any(|y| *y == TABLE2[0]); n }"
            ),
            ["GRANDFATHEREDS", "iana::VARIANTS", "MAX_LEN", "TABLE2"]
        );
    }

    #[test]
    fn what_the_body_declares_or_cannot_name_safely_is_left_out() {
        assert_eq!(
            names(
                "{ let LOCAL = 1; const INNER: u8 = 2; { static NESTED: u8 = 3; } \
                   thread_local! { static CELL: u8 = 4; } use m::USED; \
                   unsafe { COUNTER += 1; } \
                   LOCAL + INNER + NESTED + CELL + USED + Self::ASSOC + T::<u8>::X + N \
                   + <T as Tr>::QUALIFIED + KEPT }"
            ),
            ["KEPT"]
        );
        assert!(names("{ use m::*; KEPT }").is_empty());
        let block: Block = syn::parse_str("{ KEPT }").expect("a block");
        assert!(read_by(&block, true).is_empty());
    }
}
