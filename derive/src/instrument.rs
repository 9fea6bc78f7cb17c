//! Branch instrumentation: rewrites a function body so that each branch
//! outcome it takes, and how close it came to the ones it missed, is recorded.
//!
//! Outcomes, numbered in source order (their ids are stable while the code
//! does not change):
//! - each atomic condition of an `if`, `while` or match guard (an operand of
//!   `&&`/`||`, or the whole condition when it has none): true, false;
//! - `if let` / `while let` / `let … else`: matched, not matched;
//! - `for`: body entered, loop left;
//! - each `match` arm: taken;
//! - each operand of `&&`/`||` anywhere else (a return value, a `let`, an
//!   argument, a closure): true, false.
//!
//! Each outcome records its control-dependence parent: the outcome that must
//! be taken for it to be reached. What follows a guard clause on a
//! comparison (an `if a != b` without `else` whose block always leaves:
//! `return`, `break`, `continue`, `panic!`) in its block, and what follows a
//! `let … else`, is reached only on the guard's other side, so that side is
//! its parent: a search that stops at `if a != b { return false; }` then
//! measures how far `a` is from `b` instead of seeing no way on. A guard on
//! a flag (`if !ok { return … }`) gives no distance to measure, and is left
//! as it was. Closures are instrumented as part of the
//! body; nested items (`fn`, `impl`), `const { … }` blocks and macro
//! arguments are not.
//!
//! The table also lists the body's call sites (the callee's path or method
//! name as written, with the outcome under which the call is made), so that
//! search can find its way into a helper that no call has entered yet, and
//! the literals its comparisons, patterns, comparing methods and function
//! calls use (generation's dictionary): a literal passed to a function
//! (`between(script, "Qaaa", "Qabx")`) is often compared in code carve does
//! not instrument (generic, or another crate's).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Stmt, UnOp};

/// One branch outcome, as emitted into the site table.
pub struct BranchRow {
    /// A variant of `carve::registry::BranchKind`.
    kind: &'static str,
    condition: String,
    /// A variant of `carve::registry::Side`.
    side: &'static str,
    line: usize,
    col: usize,
    parent: Option<usize>,
}

/// A call made in an instrumented body: the callee as written (`part`,
/// `Self::part`, `triple::part`, a method of `self` by its name, a method
/// of another value as `.name`) and the outcome it is made under.
pub struct CallSite {
    callee: String,
    parent: Option<usize>,
}

/// A condition whose boundaries and mutants the runtime makes goals of:
/// the outcome it is located at and its form.
pub struct ConditionRow {
    branch: usize,
    form: FormRow,
}

/// A variant of `carve::registry::Form`.
enum FormRow {
    /// A comparison: the operator's `Op` variant and its number among the
    /// body's comparisons.
    Compare(&'static str, usize),
    Boolean,
    /// `&&` or `||` (`Logic` variant), its text, and the outcomes of its
    /// right operand that tell it from the other operator.
    Logic(&'static str, String, Vec<usize>),
    /// An arithmetic operation: the operator's `Arith` variant, its number
    /// among the body's comparisons and operations, its text and place.
    Arith(&'static str, usize, String, (usize, usize)),
    /// A `match` arm that can be deleted (a catch-all arm follows): its
    /// pattern.
    Arm(String),
}

/// A variant of `carve::registry::Constant`: a literal a comparison or a
/// pattern uses, or one passed to a comparing method or a function.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConstantRow {
    Str(String),
    Char(char),
    Byte(u8),
    Int(i128),
}

/// What instrumenting a body found.
pub struct Table {
    branches: Vec<BranchRow>,
    calls: Vec<CallSite>,
    conditions: Vec<ConditionRow>,
    /// The positions in `conditions` of those inside an `unsafe` block.
    unsafe_conditions: Vec<usize>,
    /// In order, each once.
    constants: std::collections::BTreeSet<ConstantRow>,
}

/// [`instrument_in`] for a body whose function is not named (tests).
#[cfg(test)]
fn instrument(block: &Block, sites: &Ident, is_unsafe: bool, frame: bool) -> (Block, Table) {
    instrument_in(block, sites, "", is_unsafe, frame)
}

/// Rewrites `block`, the body of function `function`, to record into the
/// site table `sites`; returns the rewritten block and the table's branches
/// and call sites. The block starts by recording that it was entered, and
/// by noting the tables it reads (once per process: [`crate::tables`]); the
/// body of an `unsafe fn` notes none. Functions nested in it are named
/// inside it (`read_digit::parse_digit`).
fn instrument_in(
    block: &Block,
    sites: &Ident,
    function: &str,
    is_unsafe: bool,
    frame: bool,
) -> (Block, Table) {
    let tables = crate::tables::read_by(block, is_unsafe);
    let mut rewriter = Rewriter {
        function: function.to_owned(),
        sites: sites.clone(),
        at: if frame {
            quote!(&__carve_frame)
        } else {
            quote!(&#sites)
        },
        branches: Vec::new(),
        calls: Vec::new(),
        conditions: Vec::new(),
        unsafe_conditions: Vec::new(),
        comparisons: 0,
        parent: None,
        constants: Default::default(),
        passed: None,
    };
    let mut block = block.clone();
    rewriter.visit_block_mut(&mut block);
    // Entering the function is recorded too: it tells a helper that was
    // entered and took no branch from one never called.
    block.stmts.insert(
        0,
        if frame {
            syn::parse_quote!(
                #[allow(unused_variables)]
                let __carve_frame = ::carve::_macro_support::cov::Frame::enter(&#sites);
            )
        } else {
            syn::parse_quote!(::carve::_macro_support::cov::enter(&#sites);)
        },
    );
    if !tables.is_empty() {
        block.stmts.insert(
            1,
            syn::parse_quote!(::carve::_macro_support::tables::note(&#sites, || {
                #[allow(unused_imports)]
                use ::carve::_macro_support::tables::{
                    TableProbe, ViaChar as _, ViaInt as _, ViaKeyRows as _, ViaNothing as _,
                    ViaPairRows as _, ViaText as _, ViaTextRows as _,
                };
                [#((&&&&&&&TableProbe(&#tables)).carve_table()),*]
            });),
        );
    }
    let table = Table {
        branches: rewriter.branches,
        calls: rewriter.calls,
        conditions: rewriter.conditions,
        unsafe_conditions: rewriter.unsafe_conditions,
        constants: rewriter.constants,
    };
    (block, table)
}

/// The site table's branches, call sites, conditions, constants and the
/// positions of the conditions inside `unsafe` blocks, as five static slices.
pub fn table(
    table: &Table,
) -> (
    TokenStream,
    TokenStream,
    TokenStream,
    TokenStream,
    TokenStream,
) {
    let rows = table.branches.iter().map(|o| {
        let BranchRow {
            kind,
            condition,
            side,
            line,
            col,
            ..
        } = o;
        let kind = Ident::new(kind, Span::call_site());
        let side = Ident::new(side, Span::call_site());
        let (line, col) = (*line as u32, *col as u32);
        let parent = o.parent.map_or(u32::MAX, |p| p as u32);
        quote!(::carve::_macro_support::cov::Branch {
            kind: ::carve::_macro_support::cov::BranchKind::#kind,
            condition: #condition,
            side: ::carve::_macro_support::cov::Side::#side,
            line: #line, col: #col, parent: #parent,
        })
    });
    let calls = table.calls.iter().map(|c| {
        let callee = &c.callee;
        let parent = c.parent.map_or(u32::MAX, |p| p as u32);
        quote!(::carve::_macro_support::cov::CallSite { callee: #callee, parent: #parent })
    });
    let conditions = table.conditions.iter().map(|c| {
        let branch = c.branch as u32;
        let form = match &c.form {
            FormRow::Compare(op, index) => {
                let (op, index) = (Ident::new(op, Span::call_site()), *index as u32);
                quote!(::carve::_macro_support::cov::Form::Compare {
                    op: ::carve::_macro_support::cov::Op::#op, index: #index,
                })
            }
            FormRow::Boolean => quote!(::carve::_macro_support::cov::Form::Boolean),
            FormRow::Logic(op, text, kills) => {
                let op = Ident::new(op, Span::call_site());
                let kills = kills.iter().map(|k| *k as u32);
                quote!(::carve::_macro_support::cov::Form::Logic {
                    op: ::carve::_macro_support::cov::Logic::#op, text: #text, kills: &[#(#kills),*],
                })
            }
            FormRow::Arith(op, index, text, (line, col)) => {
                let op = Ident::new(op, Span::call_site());
                let (index, line, col) = (*index as u32, *line as u32, *col as u32);
                quote!(::carve::_macro_support::cov::Form::Arith {
                    op: ::carve::_macro_support::cov::Arith::#op, index: #index, text: #text,
                    at: (#line, #col),
                })
            }
            FormRow::Arm(text) => quote!(::carve::_macro_support::cov::Form::Arm { text: #text }),
        };
        quote!(::carve::_macro_support::cov::Condition { branch: #branch, form: #form })
    });
    let constants = table.constants.iter().map(|c| match c {
        ConstantRow::Str(s) => quote!(::carve::_macro_support::cov::Constant::Str(#s)),
        ConstantRow::Char(c) => quote!(::carve::_macro_support::cov::Constant::Char(#c)),
        ConstantRow::Byte(b) => quote!(::carve::_macro_support::cov::Constant::Byte(#b)),
        ConstantRow::Int(i) => {
            let i = proc_macro2::Literal::i128_unsuffixed(*i);
            quote!(::carve::_macro_support::cov::Constant::Int(#i))
        }
    });
    let unmutated = table.unsafe_conditions.iter().map(|i| *i as u32);
    (
        quote!(&[#(#rows),*]),
        quote!(&[#(#calls),*]),
        quote!(&[#(#conditions),*]),
        quote!(&[#(#constants),*]),
        quote!(&[#(#unmutated),*]),
    )
}

struct Rewriter {
    /// The function whose body this is (`Type::method`), empty when unknown.
    function: String,
    sites: Ident,
    /// What the recording calls take: the body's frame (`&__carve_frame`),
    /// or, in a closure or an `async` block, which may run after the call
    /// returned, the table (`&SITES`).
    at: TokenStream,
    branches: Vec<BranchRow>,
    calls: Vec<CallSite>,
    conditions: Vec<ConditionRow>,
    /// The positions in `conditions` of those inside an `unsafe` block.
    unsafe_conditions: Vec<usize>,
    /// Comparisons and arithmetic operations so far: each has its block of
    /// goal slots.
    comparisons: usize,
    parent: Option<usize>,
    /// Literals compared against, matched, or passed to a function.
    constants: std::collections::BTreeSet<ConstantRow>,
    /// The outcome by which the last `if` visited was passed over (its
    /// condition false): what follows it is reached that way when it is a
    /// guard clause.
    passed: Option<Option<usize>>,
}

/// Where a condition leads: the outcome reached when it is true, and when
/// false; and every atomic outcome by which it ends true, and false.
struct Exits {
    on_true: Option<usize>,
    on_false: Option<usize>,
    trues: Vec<usize>,
    falses: Vec<usize>,
}

impl Rewriter {
    /// Adds the outcomes `sides` of a site at `(line, col)` whose text is
    /// `condition`. Both are taken from the user's tokens before anything in
    /// them is rewritten: a condition around a closure with conditions of its
    /// own would otherwise show (and start at) the instrumented code.
    fn add(
        &mut self,
        kind: &'static str,
        (line, col): (usize, usize),
        condition: String,
        sides: &[&'static str],
        parent: Option<usize>,
    ) -> usize {
        let first = self.branches.len();
        for &side in sides {
            self.branches.push(BranchRow {
                kind,
                condition: condition.clone(),
                side,
                line,
                col,
                parent,
            });
        }
        first
    }

    fn with_parent<R>(&mut self, parent: Option<usize>, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = std::mem::replace(&mut self.parent, parent);
        let result = f(self);
        self.parent = saved;
        result
    }

    /// Instruments a boolean condition evaluated under `parent`.
    fn condition(&mut self, expr: &mut Expr, parent: Option<usize>) -> Exits {
        match expr {
            Expr::Paren(p) => return self.condition(&mut p.expr, parent),
            Expr::Group(g) => return self.condition(&mut g.expr, parent),
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                let text = pretty(&*b);
                let mut left = self.condition(&mut b.left, parent);
                let right = self.condition(&mut b.right, left.on_true);
                // `l || r` differs from `l && r` where both run and differ:
                // `r` false.
                let key = self.logic("And", text, &right.falses);
                self.swappable(expr, key);
                left.falses.extend(&right.falses);
                return Exits {
                    on_true: right.on_true,
                    on_false: right.on_false,
                    trues: right.trues,
                    falses: left.falses,
                };
            }
            Expr::Binary(b) if matches!(b.op, BinOp::Or(_)) => {
                let text = pretty(&*b);
                let mut left = self.condition(&mut b.left, parent);
                let right = self.condition(&mut b.right, left.on_false);
                let key = self.logic("Or", text, &right.trues);
                self.swappable(expr, key);
                left.trues.extend(&right.trues);
                return Exits {
                    on_true: right.on_true,
                    on_false: right.on_false,
                    trues: left.trues,
                    falses: right.falses,
                };
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) && is_compound(&u.expr) => {
                let inner = self.condition(&mut u.expr, parent);
                return Exits {
                    on_true: inner.on_false,
                    on_false: inner.on_true,
                    trues: inner.falses,
                    falses: inner.trues,
                };
            }
            Expr::Let(_) => {
                // A `let` inside a chain (`if let … && …`): its operands are
                // instrumented, the match itself is not counted.
                self.with_parent(parent, |r| syn::visit_mut::visit_expr_mut(r, expr));
                return Exits {
                    on_true: parent,
                    on_false: parent,
                    trues: Vec::new(),
                    falses: Vec::new(),
                };
            }
            _ => {}
        }
        // Text and place first: visiting rewrites closures inside `expr`.
        let (at, text) = (location(expr), pretty(&*expr));
        self.with_parent(parent, |r| r.visit_expr_mut(expr));
        let id = self.add("Condition", at, text, &["True", "False"], parent);
        let at = self.at.clone();
        let id32 = id as u32;
        let rewritten = match comparison(expr) {
            Some((left, op, right)) => {
                operand_constants(left, &mut self.constants);
                operand_constants(right, &mut self.constants);
                let op_token = &op.1;
                let op_name = Ident::new(op.0, Span::call_site());
                let index = self.comparisons as u32;
                self.comparisons += 1;
                self.conditions.push(ConditionRow {
                    branch: id,
                    form: FormRow::Compare(op.0, index as usize),
                });
                // The operands' order for types whose difference carve does
                // not know: `<` and friends guarantee `PartialOrd`.
                let order = match op.0 {
                    "Eq" | "Ne" => quote!(::core::option::Option::None),
                    _ => quote!(::core::cmp::PartialOrd::partial_cmp(__carve_l, __carve_r)),
                };
                // In parentheses: a `match` that starts an expression
                // statement (`a == b && c` as an arm's body) would end there.
                syn::parse_quote!((match (&(#left), &(#right)) {
                    (__carve_l, __carve_r) => ::carve::_macro_support::cov::compare_with_goals(
                        #at,
                        #id32,
                        #index,
                        *__carve_l #op_token *__carve_r,
                        ::carve::_macro_support::cov::Op::#op_name,
                        || {
                            #[allow(unused_imports)]
                            use ::carve::_macro_support::cov::{KnownCmp as _, UnknownCmp as _};
                            (&::carve::_macro_support::cov::Probe(__carve_l, __carve_r)).cmp_info()
                        },
                        || #order,
                    ),
                }))
            }
            None => {
                self.conditions.push(ConditionRow {
                    branch: id,
                    form: FormRow::Boolean,
                });
                syn::parse_quote!(::carve::_macro_support::cov::boolean(#at, #id32, #expr))
            }
        };
        *expr = rewritten;
        Exits {
            on_true: Some(id),
            on_false: Some(id + 1),
            trues: vec![id],
            falses: vec![id + 1],
        }
    }

    /// Adds the mutant swapping `&&` and `||` in `text`, told apart by
    /// `kills`; returns the outcome that keys it (the first of `kills`).
    fn logic(&mut self, op: &'static str, text: String, kills: &[usize]) -> Option<usize> {
        let first = *kills.first()?;
        self.conditions.push(ConditionRow {
            branch: first,
            form: FormRow::Logic(op, text, kills.to_vec()),
        });
        Some(first)
    }

    /// `l && r` (operands instrumented) → `{ let l = l; if l != swapped() {
    /// r } else { l } }`: `l && r` while its mutant is not run, `l || r`
    /// while it is, each short-circuiting as written (`||` evaluates `r`
    /// where `l` is false). A `let` chain is left as it is: its bindings
    /// cannot cross a block.
    fn swappable(&mut self, expr: &mut Expr, key: Option<usize>) {
        let (Some(key), Expr::Binary(b)) = (key, &*expr) else {
            return;
        };
        if has_let(expr) {
            return;
        }
        let (at, key) = (&self.at, key as u32);
        // Without their parentheses: in a block or a `let`, the user's
        // `(a || b)` would be warned about (`unused_parens`).
        let (left, right) = (unparen(&b.left), unparen(&b.right));
        let swapped = quote!(::carve::_macro_support::cov::swapped(#at, #key));
        *expr = match b.op {
            BinOp::And(_) => syn::parse_quote!({
                let __carve_l: bool = #left;
                if __carve_l != #swapped { #right } else { __carve_l }
            }),
            _ => syn::parse_quote!({
                let __carve_l: bool = #left;
                if __carve_l == #swapped { #right } else { __carve_l }
            }),
        };
    }

    /// `l op r` (`+ - * / %`, operands instrumented) → the operation
    /// through `carve::coverage::arith::Operands`, which
    /// records its mutants' kills where the operands are numbers and runs
    /// the operator as written (or the mutant, under a strong check).
    /// Operands are evaluated once, left first, and moved as the operator
    /// moves them.
    fn arith(&mut self, expr: &mut Expr) {
        let Expr::Binary(b) = expr else { return };
        let Some(op) = arith_op(&b.op) else { return };
        // Both literals: a constant (`&(2 * 3)` may be promoted to a
        // `'static`), which no input changes.
        if literal(&b.left) && literal(&b.right) {
            return;
        }
        let (at, text) = (location(&*b), pretty(&*b));
        // The operation itself has the span of where it is written, so that
        // its overflow or division by zero panics there: with the
        // attribute's (call-site) context, a panic is located at the
        // attribute, and so is a failure generation finds. Taken before
        // the operands are rewritten (`a + b - c`: `a + b` starts with a
        // parenthesis of carve's then).
        let written = crate::first_span(&*b);
        self.visit_expr_mut(&mut b.left);
        self.visit_expr_mut(&mut b.right);
        let index = self.comparisons;
        self.comparisons += 1;
        self.conditions.push(ConditionRow {
            branch: self.parent.unwrap_or(u32::MAX as usize),
            form: FormRow::Arith(op, index, text, at),
        });
        let (at, index) = (&self.at, index as u32);
        let (left, right, op_token) = (&b.left, &b.right, &b.op);
        let op = Ident::new(op, Span::call_site());
        let (l, r) = (
            Ident::new("__carve_l", written),
            Ident::new("__carve_r", written),
        );
        *expr = syn::parse_quote!((match (#left, #right) {
            (__carve_l, __carve_r) => {
                #[allow(unused_imports)]
                use ::carve::_macro_support::cov::{KnownArith as _, UnknownArith as _};
                ::carve::_macro_support::cov::Operands::new(__carve_l, __carve_r).arith(
                    #at,
                    #index,
                    ::carve::_macro_support::cov::Arith::#op,
                    |#l, #r| #l #op_token #r,
                )
            }
        }));
    }

    /// Makes the arm of outcome `id` a mutant that can be deleted: guarded
    /// by `kept(id)` (before its own guard, if any), which is false only
    /// while that mutant runs.
    fn deletable(&mut self, arm: &mut syn::Arm, id: usize) {
        let text = match &arm.pat {
            syn::Pat::Guard(guarded) => pretty(&guarded.pat),
            pat => pretty(pat),
        };
        self.conditions.push(ConditionRow {
            branch: id,
            form: FormRow::Arm(text),
        });
        let (at, id) = (&self.at, id as u32);
        let kept: Expr = syn::parse_quote!(::carve::_macro_support::cov::kept(#at, #id));
        arm.pat = match std::mem::replace(&mut arm.pat, syn::Pat::Verbatim(TokenStream::new())) {
            syn::Pat::Guard(mut guarded) => {
                let guard = &guarded.guard;
                *guarded.guard = syn::parse_quote!(#kept && (#guard));
                syn::Pat::Guard(guarded)
            }
            pat => syn::Pat::Guard(syn::PatGuard {
                attrs: Vec::new(),
                pat: Box::new(pat),
                if_token: Default::default(),
                guard: Box::new(kept),
            }),
        };
    }

    fn call_site(&mut self, callee: String) {
        let parent = self.parent;
        self.calls.push(CallSite { callee, parent });
    }

    fn hit(&self, id: usize) -> Stmt {
        let (at, id) = (&self.at, id as u32);
        syn::parse_quote!(::carve::_macro_support::cov::hit(#at, #id);)
    }

    /// Instruments the scrutinee of a `let` condition and adds its matched
    /// and not-matched branches; returns the first id and the two hits.
    fn let_branches(
        &mut self,
        kind: &'static str,
        let_expr: &mut syn::ExprLet,
    ) -> (usize, Stmt, Stmt) {
        self.visit_expr_mut(&mut let_expr.expr);
        let label = format!("let {}", pretty(&let_expr.pat));
        let id = self.add(
            kind,
            location(&let_expr.pat),
            label,
            &["Matched", "NotMatched"],
            self.parent,
        );
        (id, self.hit(id), self.hit(id + 1))
    }

    /// `if let P = E { A } else { B }` → `match E { P => { hit; A } _ => { hit; B } }`
    /// (its desugaring), so both branches can be recorded.
    fn if_let(&mut self, expr: &mut Expr) -> bool {
        let Expr::If(if_expr) = expr else {
            return false;
        };
        let Expr::Let(let_expr) = &mut *if_expr.cond else {
            return false;
        };
        let (id, matched, unmatched) = self.let_branches("IfLet", let_expr);
        let pat = &let_expr.pat;
        let mut then_branch = if_expr.then_branch.clone();
        self.with_parent(Some(id), |r| r.visit_block_mut(&mut then_branch));
        let mut else_expr: Expr = match if_expr.else_branch.take() {
            Some((_, e)) => *e,
            None => syn::parse_quote!({}),
        };
        self.with_parent(Some(id + 1), |r| r.visit_expr_mut(&mut else_expr));
        let scrutinee = &let_expr.expr;
        let attrs = &if_expr.attrs;
        *expr = syn::parse_quote!(#(#attrs)* match #scrutinee {
            #pat => { #matched #then_branch }
            #[allow(unreachable_patterns)]
            _ => { #unmatched #else_expr }
        });
        true
    }

    /// `while let P = E { B }` → `loop { match E { P => { hit; B } _ => { hit; break } } }`.
    fn while_let(&mut self, expr: &mut Expr) -> bool {
        let Expr::While(while_expr) = expr else {
            return false;
        };
        let Expr::Let(let_expr) = &mut *while_expr.cond else {
            return false;
        };
        let (id, matched, unmatched) = self.let_branches("WhileLet", let_expr);
        let pat = &let_expr.pat;
        let mut body = while_expr.body.clone();
        self.with_parent(Some(id), |r| r.visit_block_mut(&mut body));
        let scrutinee = &let_expr.expr;
        let (attrs, label) = (&while_expr.attrs, &while_expr.label);
        *expr = syn::parse_quote!(#(#attrs)* #label loop {
            match #scrutinee {
                #pat => { #matched #body }
                #[allow(unreachable_patterns)]
                _ => { #unmatched break; }
            }
        });
        true
    }
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if self.if_let(expr) || self.while_let(expr) {
            return;
        }
        match expr {
            // A mutant of a condition guarding unsafe code (smallvec's
            // `index > len` before `ptr.add(index)`) writes out of bounds
            // when run: the allocator aborts the worker later, outside any
            // call. Their conditions are goals, but their mutants are not
            // run (`Sites::unmutated`).
            Expr::Unsafe(unsafe_expr) => {
                let before = self.conditions.len();
                self.visit_block_mut(&mut unsafe_expr.block);
                let inside = before..self.conditions.len();
                self.unsafe_conditions.extend(inside);
            }
            Expr::If(if_expr) => {
                let exits = self.condition(&mut if_expr.cond, self.parent);
                self.with_parent(exits.on_true, |r| {
                    r.visit_block_mut(&mut if_expr.then_branch)
                });
                if let Some((_, else_expr)) = &mut if_expr.else_branch {
                    self.with_parent(exits.on_false, |r| r.visit_expr_mut(else_expr));
                }
                self.passed = Some(exits.on_false);
            }
            Expr::While(while_expr) => {
                let exits = self.condition(&mut while_expr.cond, self.parent);
                self.with_parent(exits.on_true, |r| r.visit_block_mut(&mut while_expr.body));
            }
            Expr::ForLoop(for_expr) => {
                // The label first: visiting rewrites closures in the iterator.
                let label = format!(
                    "for {} in {}",
                    pretty(&for_expr.pat),
                    pretty(&for_expr.expr)
                );
                self.visit_expr_mut(&mut for_expr.expr);
                let id = self.add(
                    "For",
                    location(&for_expr.pat),
                    label,
                    &["Entered", "Left"],
                    self.parent,
                );
                self.with_parent(Some(id), |r| r.visit_block_mut(&mut for_expr.body));
                let (at, id32, iter) = (&self.at, id as u32, &for_expr.expr);
                *for_expr.expr = syn::parse_quote!(::carve::_macro_support::cov::Loop::new(
                    ::core::iter::IntoIterator::into_iter(#iter), #at, #id32
                ));
            }
            // `&&` and `||` outside a condition: each operand counts too.
            Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
                self.condition(expr, self.parent);
            }
            Expr::Binary(b) if arith_op(&b.op).is_some() => self.arith(expr),
            // The length is a constant: evaluated at compile time.
            Expr::Repeat(repeat) => self.visit_expr_mut(&mut repeat.expr),
            Expr::Call(call) => {
                if let Expr::Path(path) = &*call.func {
                    let callee = path
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect::<Vec<_>>()
                        .join("::");
                    self.call_site(callee);
                }
                // A literal passed to a function is as often compared inside
                // it (`between(script, "Qaaa", "Qabx")`, where `between`
                // is generic or uninstrumented) as where it is written. A
                // constructor's (`Some(0)`, `Err(Kind::Empty)`) is a value
                // made, not one an input is measured against.
                if !constructs(&call.func) {
                    call.args
                        .iter()
                        .for_each(|a| operand_constants(a, &mut self.constants));
                }
                syn::visit_mut::visit_expr_call_mut(self, call);
            }
            Expr::MethodCall(call) => {
                // Text compared by a method (`s.starts_with("GMT")`) is a
                // comparison too. Other methods' literals are left out:
                // taking them all (`trim_start_matches(' ')`,
                // `checked_mul(10)`) cost semver 1.0.28 5 of 274 outcomes.
                if COMPARING_METHODS.contains(&call.method.to_string().as_str()) {
                    call.args
                        .iter()
                        .for_each(|a| operand_constants(a, &mut self.constants));
                }
                // `self.part()` names a method of the function's own type;
                // `x.get()` one of whatever `x` is (`.get`), which may be
                // std's: the runtime decides what it links to.
                let on_self = matches!(&*call.receiver, Expr::Path(p) if p.path.is_ident("self"));
                let method = call.method.to_string();
                self.call_site(if on_self {
                    method
                } else {
                    format!(".{method}")
                });
                syn::visit_mut::visit_expr_method_call_mut(self, call);
            }
            Expr::Match(match_expr) => {
                self.visit_expr_mut(&mut match_expr.expr);
                let parent = self.parent;
                // Each arm above a catch-all can be deleted (cargo-mutants'
                // "delete match arm"): its values then go to the arms below.
                let deletable = match_expr.arms.len().saturating_sub(1);
                let deletable = match match_expr.arms.last() {
                    Some(last) if catches_all(&last.pat) => deletable,
                    _ => 0,
                };
                for (n, arm) in match_expr.arms.iter_mut().enumerate() {
                    pattern_constants(&arm.pat, &mut self.constants);
                    let mut body_parent = parent;
                    let label = match &mut arm.pat {
                        // Guards are conditions, evaluated once the pattern matched.
                        syn::Pat::Guard(guarded) => {
                            body_parent = self.condition(&mut guarded.guard, parent).on_true;
                            pretty(&guarded.pat)
                        }
                        pat => pretty(pat),
                    };
                    let id = self.add(
                        "MatchArm",
                        location(&arm.pat),
                        label,
                        &["Taken"],
                        body_parent,
                    );
                    self.with_parent(Some(id), |r| r.visit_expr_mut(&mut arm.body));
                    let (hit, body) = (self.hit(id), &arm.body);
                    *arm.body = syn::parse_quote!({ #hit #body });
                    if n < deletable {
                        self.deletable(arm, id);
                    }
                }
            }
            // Evaluated at compile time, where nothing can be recorded.
            Expr::Const(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut Block) {
        let saved = self.parent;
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let let_else = match &mut stmt {
                Stmt::Local(local) => local.init.as_mut().and_then(|init| {
                    init.diverge
                        .as_mut()
                        .map(|d| (&local.pat, &mut init.expr, d))
                }),
                _ => None,
            };
            match let_else {
                Some((pat, init, (_, diverge))) => {
                    self.visit_expr_mut(init);
                    let id = self.add(
                        "LetElse",
                        location(pat),
                        format!("let {}", pretty(pat)),
                        &["Matched", "NotMatched"],
                        self.parent,
                    );
                    self.with_parent(Some(id + 1), |r| r.visit_expr_mut(diverge));
                    let unmatched = self.hit(id + 1);
                    let body = &**diverge;
                    **diverge = syn::parse_quote!({ #unmatched #body });
                    stmts.push(stmt);
                    stmts.push(self.hit(id));
                    // What follows runs only when the pattern matched.
                    self.parent = Some(id);
                }
                None => {
                    let guard = is_guard_clause(&stmt);
                    self.passed = None;
                    self.visit_stmt_mut(&mut stmt);
                    stmts.push(stmt);
                    // What follows a guard clause runs only when it was
                    // passed over.
                    if let (true, Some(passed)) = (guard, self.passed.take()) {
                        self.parent = passed;
                    }
                }
            }
        }
        block.stmts = stmts;
        self.parent = saved;
    }

    // Nested items are not part of this body's coverage. A nested function
    // (a parser's local digit reader, `fn parse_digit` inside `read_digit`)
    // is instrumented as a function of its own, named inside this one,
    // unless it carries a carve attribute of its own; only this copy of it,
    // which the instrumented body calls, is.
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if let syn::Item::Fn(f) = item {
            if !has_carve_attr(&f.attrs) && !is_test(&f.attrs) {
                let inner = f.sig.ident.to_string();
                let inner = inner.trim_start_matches("r#");
                let name = match self.function.is_empty() {
                    true => inner.to_owned(),
                    false => format!("{}::{inner}", self.function),
                };
                instrument_named_fn(f, &name);
            }
        }
    }

    // A closure or an `async` block may run after the call returned, when
    // the frame is gone: they record through the table.
    fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
        let sites = &self.sites;
        let saved = std::mem::replace(&mut self.at, quote!(&#sites));
        syn::visit_mut::visit_expr_closure_mut(self, closure);
        self.at = saved;
    }

    fn visit_expr_async_mut(&mut self, block: &mut syn::ExprAsync) {
        let sites = &self.sites;
        let saved = std::mem::replace(&mut self.at, quote!(&#sites));
        syn::visit_mut::visit_expr_async_mut(self, block);
        self.at = saved;
    }

    // Types and generic arguments hold only constants (`[T; N + 1]`,
    // `f::<{ N * 2 }>()`), evaluated at compile time.
    fn visit_type_mut(&mut self, _ty: &mut syn::Type) {}

    fn visit_generic_argument_mut(&mut self, _arg: &mut syn::GenericArgument) {}
}

/// Whether `stmt` is a guard clause on a comparison: an `if` without
/// `else` whose condition compares (`a != b`, or `&&`/`||` of comparisons)
/// and whose block always leaves the enclosing block, by `return`, `break`,
/// `continue` or a panicking macro as its last statement.
fn is_guard_clause(stmt: &Stmt) -> bool {
    let Stmt::Expr(Expr::If(if_expr), _) = stmt else {
        return false;
    };
    if if_expr.else_branch.is_some() || !compares(&if_expr.cond) {
        return false;
    }
    let leaves = |expr: &Expr| match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => is_panicking(&m.mac),
        _ => false,
    };
    match if_expr.then_branch.stmts.last() {
        Some(Stmt::Expr(expr, _)) => leaves(expr),
        Some(Stmt::Macro(m)) => is_panicking(&m.mac),
        _ => false,
    }
}

/// Whether `cond` is a comparison, or `&&`, `||` or `!` of comparisons:
/// a condition with a distance on each of its sides.
fn compares(cond: &Expr) -> bool {
    match cond {
        Expr::Paren(p) => compares(&p.expr),
        Expr::Group(g) => compares(&g.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => compares(&u.expr),
        Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
            compares(&b.left) && compares(&b.right)
        }
        expr => comparison(expr).is_some(),
    }
}

/// Whether `mac` is one of the standard macros that never return.
fn is_panicking(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        ["panic", "unreachable", "todo", "unimplemented"].contains(&s.ident.to_string().as_str())
    })
}

/// The `Arith` variant of an arithmetic operator (compound assignments
/// are not rewritten).
fn arith_op(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "Add",
        BinOp::Sub(_) => "Sub",
        BinOp::Mul(_) => "Mul",
        BinOp::Div(_) => "Div",
        BinOp::Rem(_) => "Rem",
        _ => return None,
    })
}

/// `expr` without the parentheses around it.
fn unparen(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => unparen(&p.expr),
        _ => expr,
    }
}

/// Whether `expr` is a literal (in parentheses, or negated).
fn literal(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => literal(&p.expr),
        Expr::Group(g) => literal(&g.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => literal(&u.expr),
        Expr::Lit(_) => true,
        _ => false,
    }
}

/// Whether a `&&`/`||` chain has a `let` among its operands.
fn has_let(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => has_let(&p.expr),
        Expr::Group(g) => has_let(&g.expr),
        Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
            has_let(&b.left) || has_let(&b.right)
        }
        Expr::Let(_) => true,
        _ => false,
    }
}

/// Whether an arm's pattern (without a guard) matches every value: `_` or
/// a plain binding (lower case: `None` is a variant).
fn catches_all(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(binding) => {
            binding.subpat.is_none()
                && binding
                    .ident
                    .to_string()
                    .trim_start_matches("r#")
                    .starts_with(|c: char| c.is_lowercase() || c == '_')
        }
        _ => false,
    }
}

fn is_compound(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => is_compound(&p.expr),
        Expr::Group(g) => is_compound(&g.expr),
        Expr::Binary(b) => matches!(b.op, BinOp::And(_) | BinOp::Or(_)),
        Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => is_compound(&u.expr),
        _ => false,
    }
}

/// Methods whose literal arguments are compared against their receiver.
const COMPARING_METHODS: [&str; 12] = [
    "starts_with",
    "ends_with",
    "strip_prefix",
    "strip_suffix",
    "eq_ignore_ascii_case",
    "contains",
    "find",
    "rfind",
    "split",
    "split_once",
    "rsplit_once",
    "trim_matches",
];

/// Whether the callee `func` builds a value rather than computes: a tuple
/// struct or variant (`Some`, `Err`, `Kind::Empty`, `Self::Wrapped`), by
/// Rust's naming (an upper-case last segment).
fn constructs(func: &Expr) -> bool {
    match func {
        Expr::Paren(p) => constructs(&p.expr),
        Expr::Group(g) => constructs(&g.expr),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        }),
        _ => false,
    }
}

/// The constant `expr` is, if it is a literal (in parentheses, behind `&`,
/// or negated).
fn constant(expr: &Expr) -> Option<ConstantRow> {
    match expr {
        Expr::Paren(p) => constant(&p.expr),
        Expr::Group(g) => constant(&g.expr),
        Expr::Reference(r) => constant(&r.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match constant(&u.expr)? {
            ConstantRow::Int(i) => Some(ConstantRow::Int(i.checked_neg()?)),
            _ => None,
        },
        Expr::Lit(lit) => literal_constant(&lit.lit),
        _ => None,
    }
}

/// Adds the constants of a compared operand: the operand itself, or the
/// literals it wraps (`Some(&b'~')`, `Ok(0)`, `(b'a', 1)`, `[0, 0]`), which
/// a parser compares against as often as against bare literals.
fn operand_constants(expr: &Expr, out: &mut std::collections::BTreeSet<ConstantRow>) {
    if let Some(c) = constant(expr) {
        out.insert(c);
        return;
    }
    match expr {
        Expr::Paren(p) => operand_constants(&p.expr, out),
        Expr::Group(g) => operand_constants(&g.expr, out),
        Expr::Reference(r) => operand_constants(&r.expr, out),
        Expr::Call(call) => {
            let wrapper = matches!(&*call.func, Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| i == "Some" || i == "Ok" || i == "Err"));
            if wrapper {
                call.args.iter().for_each(|a| operand_constants(a, out));
            }
        }
        Expr::Tuple(t) => t.elems.iter().for_each(|e| operand_constants(e, out)),
        Expr::Array(a) => a.elems.iter().for_each(|e| operand_constants(e, out)),
        _ => {}
    }
}

/// The constant of a literal (a byte string only when it is UTF-8 text).
fn literal_constant(lit: &syn::Lit) -> Option<ConstantRow> {
    match lit {
        syn::Lit::Str(s) => Some(ConstantRow::Str(s.value())),
        syn::Lit::ByteStr(s) => String::from_utf8(s.value()).ok().map(ConstantRow::Str),
        syn::Lit::Char(c) => Some(ConstantRow::Char(c.value())),
        syn::Lit::Byte(b) => Some(ConstantRow::Byte(b.value())),
        syn::Lit::Int(i) => i.base10_parse::<i128>().ok().map(ConstantRow::Int),
        _ => None,
    }
}

/// Adds the literals of a pattern (`"ms" | "msec"`, `b'0'..=b'9'`, `Some(-1)`).
fn pattern_constants(pat: &syn::Pat, out: &mut std::collections::BTreeSet<ConstantRow>) {
    struct Literals<'a>(&'a mut std::collections::BTreeSet<ConstantRow>);
    impl<'ast> syn::visit::Visit<'ast> for Literals<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match constant(expr) {
                Some(c) => {
                    self.0.insert(c);
                }
                None => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_lit(&mut self, lit: &'ast syn::Lit) {
            self.0.extend(literal_constant(lit));
        }
    }
    syn::visit::Visit::visit_pat(&mut Literals(out), pat);
}

/// `(left, (op name, op token), right)` for a comparison.
fn comparison(expr: &Expr) -> Option<(&Expr, (&'static str, TokenStream), &Expr)> {
    let Expr::Binary(b) = expr else { return None };
    let name = match b.op {
        BinOp::Eq(_) => "Eq",
        BinOp::Ne(_) => "Ne",
        BinOp::Lt(_) => "Lt",
        BinOp::Le(_) => "Le",
        BinOp::Gt(_) => "Gt",
        BinOp::Ge(_) => "Ge",
        _ => return None,
    };
    Some((&b.left, (name, b.op.to_token_stream()), &b.right))
}

/// Line and column (from 1) where `tokens` start.
fn location(tokens: &dyn ToTokens) -> (usize, usize) {
    span_location(crate::first_span(tokens))
}

fn span_location(span: Span) -> (usize, usize) {
    if proc_macro::is_available() {
        let span = span.unwrap();
        (span.line(), span.column())
    } else {
        (0, 0)
    }
}

/// Source-like text of an expression or pattern.
pub fn pretty(tokens: &dyn ToTokens) -> String {
    let mut s = tokens.to_token_stream().to_string();
    // A call's or a macro's parentheses follow its name; after an operator
    // (`a && (b || c)`) they keep their space.
    let mut called = String::with_capacity(s.len());
    for c in s.chars() {
        let after_name = called
            .strip_suffix(' ')
            .and_then(|before| before.chars().last())
            .is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | ')' | ']' | '!'));
        if c == '(' && after_name {
            called.pop();
        }
        called.push(c);
    }
    s = called;
    for (from, to) in [
        (" . ", "."),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" ;", ";"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (":: ", "::"),
        (" ::", "::"),
        ("! ", "!"),
    ] {
        s = s.replace(from, to);
    }
    // A prefix `-`, `&` or `*` (at the start, or after an operator or an
    // opening delimiter) binds to its operand; binary `&&`, `&`, `*`, `-`
    // keep their spaces. A leading space gives a keyword that starts the
    // text its boundary.
    s.insert(0, ' ');
    for prefix in ["-", "&", "*"] {
        if let Some(rest) = s.strip_prefix(&format!(" {prefix} ")) {
            s = format!(" {prefix}{rest}");
        }
        // Comparisons, assignments and `=>` end in one of `=`, `<`, `>`;
        // keywords come with their space so an identifier's end is not one.
        let after = [
            "=", "<", ">", "&", "|", ",", "*", "!", "+", "-", "/", "%", "^", "{", ";", " in",
            " if", " match", " while", " return",
        ];
        for op in after {
            s = s.replace(&format!("{op} {prefix} "), &format!("{op} {prefix}"));
        }
        // Opening delimiters lost their space above.
        for open in ["(", "["] {
            s = s.replace(&format!("{open}{prefix} "), &format!("{open}{prefix}"));
        }
    }
    s.split_off(1)
}

/// A function body with its instrumented twin, and the site table static.
pub struct Instrumented {
    /// `{ if active() { instrumented } else { original } }`, or only the
    /// instrumented body where the return type holds an `impl Trait`.
    pub body: Block,
    /// The `static` holding the site table, registered for reports: items
    /// for the start of the function's body, where the body sees them.
    pub sites_static: TokenStream,
}

/// Instruments a function body whose site table is the static `sites`,
/// describing function `function` (`name` or `Type::method`). With the
/// `no-instrument` feature the body is left as it is and the table is empty.
/// `read_after`: code after the body reads the arguments (a target records
/// the state of its `&mut` arguments after the call).
pub fn instrument_fn(
    block: &Block,
    sites: &Ident,
    function: &str,
    sig: &syn::Signature,
    read_after: bool,
) -> Instrumented {
    let (output, is_async) = (&sig.output, sig.asyncness.is_some());
    let first = span_location(block.brace_token.span.open()).0 as u32;
    let last = span_location(block.brace_token.span.close()).0 as u32;
    let (body, (branches, calls, conditions, constants, unmutated)) = if cfg!(
        feature = "no-instrument"
    ) {
        (
            block.clone(),
            (
                quote!(&[]),
                quote!(&[]),
                quote!(&[]),
                quote!(&[]),
                quote!(&[]),
            ),
        )
    } else {
        let (instrumented, found) = instrument_in(
            block,
            sites,
            function,
            matches!(sig.safety, syn::Safety::Unsafe(_)),
            !is_async,
        );
        // The instrumented twin lives in a closure that is never inlined, so
        // that it does not change how the original body is compiled (the
        // dormant path). An `impl Trait` in the return type must have one
        // defining body (each copy of a closure or `async` block is a type of
        // its own), and it cannot be named in a closure's type: such a body
        // is only instrumented.
        // An `async fn` body awaits, which a closure cannot: it is only
        // instrumented too.
        // A body that hands out a reborrow of a captured `&mut` for the
        // function's lifetime (returns `&mut [T]` from `&mut self`, or
        // stores a reborrow of its `headers: &'h mut [T]` in `self`, as
        // httparse's `parse_with_uninit_headers` does) compiles only in a
        // `move` closure, which takes the arguments: a helper's always
        // (nothing reads them after it), a target's when it returns a
        // borrow (no state after the call is recorded then).
        let move_kw = (!read_after || crate::params::returns_borrow(output)).then(|| quote!(move));
        // In a closure, an assignment to a captured place that a later one
        // overwrites (`self.length = 0;`) is an unused assignment, where in
        // the function it is not: the original body, compiled beside it,
        // still gets the crate's own warnings. The closure stays an argument
        // of `call_outlined`, whose `FnOnce` bound lets it hand out what it
        // captured (`fn new(out: &'a mut String) -> Encoder<'a>`).
        let body = match output {
            _ if is_async => instrumented,
            syn::ReturnType::Type(_, ty) if crate::generics::has_impl_trait(ty) => instrumented,
            syn::ReturnType::Default => syn::parse_quote!({
                if ::carve::_macro_support::cov::active() {
                    #[allow(unused_assignments)]
                    let __carve_returned = ::carve::_macro_support::call_outlined(#move_kw || -> () #instrumented);
                    __carve_returned
                } else #block
            }),
            syn::ReturnType::Type(_, ty) => syn::parse_quote!({
                if ::carve::_macro_support::cov::active() {
                    #[allow(unused_assignments)]
                    let __carve_returned = ::carve::_macro_support::call_outlined(#move_kw || -> #ty #instrumented);
                    __carve_returned
                } else #block
            }),
        };
        (body, table(&found))
    };
    let sites_static = quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #sites: ::carve::_macro_support::cov::Sites = ::carve::_macro_support::cov::Sites::new(
            ::core::module_path!(), #function, ::core::file!(), (#first, #last), #branches, #calls,
        ).with_conditions(#conditions).with_constants(#constants).with_unmutated(#unmutated);
        ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::cov::SitesRef(&#sites) }
    };
    Instrumented { body, sites_static }
}

/// The name of the static holding a function's site table. It is declared
/// in the function's body, where no other item sees it, so one name serves
/// every function.
pub fn sites_ident() -> Ident {
    Ident::new("__CARVE_SITES", Span::call_site())
}

/// Why a function cannot be instrumented, if it cannot: a `const fn`
/// cannot call the recorder. (An `async fn` body records its branches
/// where it is polled, on the thread that polls it.)
pub fn uninstrumentable(sig: &syn::Signature) -> Option<&'static str> {
    sig.constness.map(|_| "const fn")
}

/// `block` as written, with a site table at its start that has no outcomes
/// and says why (`const fn`), so that reports name the function.
fn uninstrumented_body(block: &Block, function: &str, why: &str) -> Block {
    let first = span_location(block.brace_token.span.open()).0 as u32;
    let last = span_location(block.brace_token.span.close()).0 as u32;
    let sites = sites_ident();
    let stmts = &block.stmts;
    let new: Block = syn::parse_quote!({
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #sites: ::carve::_macro_support::cov::Sites = ::carve::_macro_support::cov::Sites::new(
            ::core::module_path!(), #function, ::core::file!(), (#first, #last), &[], &[],
        ).uninstrumented(#why);
        ::carve::_macro_support::inventory::submit! { ::carve::_macro_support::cov::SitesRef(&#sites) }
        #(#stmts)*
    });
    with_braces_of(block, new)
}

/// `#[carve::instrument]`: branch coverage for a function, every method of
/// an impl block, or every function and method of an inline module (its
/// inline submodules included), without carving.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "`#[carve::instrument]` takes no arguments",
        ));
    }
    match syn::parse2::<syn::Item>(item)? {
        syn::Item::Fn(mut item) => {
            if let Some(error) =
                crate::attrs::marked_again(&item.attrs, "instrument", &item.sig.ident)
            {
                return Err(error);
            }
            instrument_item_fn(&mut item);
            Ok(quote!(#item))
        }
        syn::Item::Impl(mut item) => {
            instrument_impl(&mut item)?;
            Ok(quote!(#item))
        }
        syn::Item::Mod(mut item) if item.content.is_some() => {
            instrument_mod(&mut item)?;
            Ok(quote!(#item))
        }
        syn::Item::Mod(item) => Err(syn::Error::new_spanned(
            item,
            "`#[carve::instrument]` on `mod name;` cannot see the module's file: put it on \
             the items inside that file (functions, impl blocks, or an inline `mod`)",
        )),
        other => Err(syn::Error::new_spanned(
            other,
            "`#[carve::instrument]` goes on a function, an impl block or an inline module",
        )),
    }
}

fn instrument_item_fn(item: &mut syn::ItemFn) {
    let function = item.sig.ident.to_string();
    instrument_named_fn(item, function.trim_start_matches("r#"));
}

/// Instruments `item` as function `function`.
fn instrument_named_fn(item: &mut syn::ItemFn, function: &str) {
    *item.block = match uninstrumentable(&item.sig) {
        Some(why) => uninstrumented_body(&item.block, function, why),
        None => instrumented_body(&item.block, function, &item.sig),
    };
}

/// `block` instrumented, with its site table as an item at its start.
fn instrumented_body(block: &Block, function: &str, sig: &syn::Signature) -> Block {
    let Instrumented { body, sites_static } =
        instrument_fn(block, &sites_ident(), function, sig, false);
    with_braces_of(block, syn::parse_quote!({ #sites_static #body }))
}

/// `new` with the braces of the body as written: rustc's coverage
/// instrumentation (`-C instrument-coverage`, as llvm-cov and
/// cargo-llvm-cov use it) leaves out a function whose body's braces come
/// from a macro, so without them a `#[carve::instrument]` function was
/// missing from external coverage reports.
fn with_braces_of(written: &Block, mut new: Block) -> Block {
    new.brace_token = written.brace_token;
    new
}

fn instrument_impl(item: &mut syn::ItemImpl) -> syn::Result<()> {
    let type_name = crate::names::helper_type_name(item)?;
    for impl_item in &mut item.items {
        match impl_item {
            // Its own attribute instruments it.
            syn::ImplItem::Fn(method) if has_carve_attr(&method.attrs) => {}
            syn::ImplItem::Fn(method) => instrument_method(method, &type_name),
            _ => {}
        }
    }
    Ok(())
}

/// Instruments one method of `type_name`, when it can be.
pub fn instrument_method(method: &mut syn::ImplItemFn, type_name: &str) {
    let function = format!(
        "{type_name}::{}",
        method.sig.ident.to_string().trim_start_matches("r#")
    );
    method.block = match uninstrumentable(&method.sig) {
        Some(why) => uninstrumented_body(&method.block, &function, why),
        None => instrumented_body(&method.block, &function, &method.sig),
    };
}

/// Instruments the functions and impl blocks of an inline module and of its
/// inline submodules; items that carry a carve attribute of their own are
/// left to it.
fn instrument_mod(item: &mut syn::ItemMod) -> syn::Result<()> {
    let Some((_, items)) = &mut item.content else {
        return Ok(());
    };
    for item in items.iter_mut() {
        match item {
            syn::Item::Fn(f) if !has_carve_attr(&f.attrs) && !is_test(&f.attrs) => {
                instrument_item_fn(f);
            }
            // Impl blocks of types carve cannot name are skipped, not errors.
            syn::Item::Impl(i)
                if !has_carve_attr(&i.attrs) && crate::names::helper_type_name(i).is_ok() =>
            {
                instrument_impl(i)?;
            }
            syn::Item::Mod(m)
                if m.content.is_some() && !has_carve_attr(&m.attrs) && !is_test(&m.attrs) =>
            {
                instrument_mod(m)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether an item is a test (`#[test]`) or test-only (`#[cfg(test)]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("test")
            || (attr.path().is_ident("cfg")
                && attr.meta.to_token_stream().to_string().replace(' ', "") == "cfg(test)")
    })
}

/// Whether an item carries `#[carve::…]` or `#[cfg_attr(…, carve::…)]`.
fn has_carve_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        let names_carve = |tokens: String| tokens.replace(' ', "").contains("carve::");
        path.segments.first().is_some_and(|s| s.ident == "carve")
            || (path.is_ident("cfg_attr") && names_carve(attr.meta.to_token_stream().to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emitted_bodies_keep_the_braces_as_written() {
        // Where the braces come from decides whether `-C instrument-coverage`
        // instruments the function (llvm-cov, cargo-llvm-cov).
        let block: Block = syn::parse_str("\n    { if a { 1 } else { 2 } }").unwrap();
        let written = block.brace_token.span.open().start();
        assert_eq!((written.line, written.column), (2, 4));
        let emitted = [
            instrumented_body(&block, "f", &syn::parse_quote!(fn f())),
            uninstrumented_body(&block, "f", "const fn"),
        ];
        for body in emitted {
            let open = body.brace_token.span.open().start();
            assert_eq!((open.line, open.column), (2, 4));
        }
    }

    /// The `condition` text of every outcome of `block`, in id order.
    fn texts(block: Block) -> Vec<String> {
        let sites = Ident::new("__CARVE_SITES_t", Span::call_site());
        let (_, table) = instrument(&block, &sites, false, true);
        table.branches.into_iter().map(|b| b.condition).collect()
    }

    /// The conditions table of `block`: `(branch, form)` in order.
    fn conditions(block: Block) -> Vec<String> {
        let sites = Ident::new("__CARVE_SITES_t", Span::call_site());
        let (_, table) = instrument(&block, &sites, false, true);
        table
            .conditions
            .into_iter()
            .map(|c| match c.form {
                FormRow::Compare(op, index) => format!("{} {op} #{index}", c.branch),
                FormRow::Boolean => format!("{} boolean", c.branch),
                FormRow::Logic(op, text, kills) => {
                    format!("{} {op} `{text}` kills {kills:?}", c.branch)
                }
                FormRow::Arith(op, index, text, _) => {
                    format!("{} {op} `{text}` #{index}", c.branch as u32 as i32)
                }
                FormRow::Arm(text) => format!("{} arm `{text}`", c.branch),
            })
            .collect()
    }

    /// The instrumented block as text, without spaces.
    fn rewritten(block: Block) -> String {
        let sites = Ident::new("S", Span::call_site());
        let (block, _) = instrument(&block, &sites, false, true);
        block.to_token_stream().to_string().replace(' ', "")
    }

    /// `condition side <- parent's condition side` of every outcome of `block`.
    fn parents(block: Block) -> Vec<String> {
        let sites = Ident::new("__CARVE_SITES_t", Span::call_site());
        let (_, table) = instrument(&block, &sites, false, true);
        let name = |b: &BranchRow| format!("{} {}", b.condition, b.side);
        table
            .branches
            .iter()
            .map(|b| match b.parent {
                Some(p) => format!("{} <- {}", name(b), name(&table.branches[p])),
                None => name(b),
            })
            .collect()
    }

    #[test]
    fn what_follows_a_guard_clause_is_reached_on_its_other_side() {
        let table = parents(syn::parse_quote!({
            if a != b {
                return false;
            }
            if let Some(m) = c {
                if m != d {
                    return false;
                }
            }
            for x in xs {
                if x > 3 {
                    continue;
                }
                if x == 2 {
                    panic!("two");
                }
                f(x);
            }
            if let None = e {
                return true;
            }
            if !ok {
                return false;
            }
            if g {
                h();
            }
            k == 1
        }));
        assert_eq!(
            table,
            [
                "a != b True",
                "a != b False",
                "let Some(m) Matched <- a != b False",
                "let Some(m) NotMatched <- a != b False",
                "m != d True <- let Some(m) Matched",
                "m != d False <- let Some(m) Matched",
                // An `if` with no `else` that does not leave is no guard:
                // the loop still follows `if let Some(m)` either way.
                "for x in xs Entered <- a != b False",
                "for x in xs Left <- a != b False",
                "x > 3 True <- for x in xs Entered",
                "x > 3 False <- for x in xs Entered",
                "x == 2 True <- x > 3 False",
                "x == 2 False <- x > 3 False",
                // No distance to measure on a pattern or a flag: no guard.
                "let None Matched <- a != b False",
                "let None NotMatched <- a != b False",
                "!ok True <- a != b False",
                "!ok False <- a != b False",
                "g True <- a != b False",
                "g False <- a != b False",
            ]
        );
    }

    #[test]
    fn arithmetic_operations_are_goals_outside_constant_contexts() {
        let table = conditions(syn::parse_quote!({
            let n = a + b * c;
            if x % 2 == 1 {
                s = s + "!";
            }
            let v = [0u8; N * 2];
            let t: [u8; N + 1] = f::<{ N - 1 }>(v);
            let k = const { N / 2 };
            let fixed = 2 * 3;
            let neg = -1.0 / 2.0;
            g(|y| y - 1);
            h!(a + b);
            n -= 1;
        }));
        assert_eq!(
            table,
            [
                // `b * c` first: operands are rewritten before the
                // operation; at the top, under no outcome (-1).
                "-1 Mul `b * c` #0",
                "-1 Add `a + b * c` #1",
                "-1 Rem `x % 2` #2",
                "0 Eq #3",
                "0 Add `s + \"!\"` #4",
                "-1 Sub `y - 1` #5",
            ]
        );
    }

    #[test]
    fn an_operation_runs_through_its_operands_once() {
        let text = rewritten(syn::parse_quote!({ f(x[i + 1]?) }));
        assert!(
            text.contains(
                "match(i,1){(__carve_l,__carve_r)=>{#[allow(unused_imports)]use::carve::_macro_support::cov::{KnownArith as_,UnknownArith as_};::carve::_macro_support::cov::Operands::new(__carve_l,__carve_r).arith(&__carve_frame,0u32,::carve::_macro_support::cov::Arith::Add,|__carve_l,__carve_r|__carve_l+__carve_r,)"
                    .replace(' ', "")
                    .as_str()
            ),
            "{text}"
        );
    }

    #[test]
    fn arms_above_a_catch_all_can_be_deleted() {
        let table = conditions(syn::parse_quote!({
            match s {
                "ms" => 1,
                "s" if long => 2,
                other => 3,
            };
            match o {
                Some(1) => 1,
                None => 0,
            };
        }));
        // Outcomes: `"ms"` 0; `long` 1/2, `"s"` 3; `other` 4; then 5, 6.
        assert_eq!(table, ["0 arm `\"ms\"`", "1 boolean", "3 arm `\"s\"`"]);
        let text = rewritten(syn::parse_quote!({
            match s {
                "ms" => 1,
                "s" if long => 2,
                _ => 3,
            }
        }));
        assert!(
            text.contains("\"ms\"if::carve::_macro_support::cov::kept(&__carve_frame,0u32)=>"),
            "{text}"
        );
        assert!(text.contains("\"s\"if::carve::_macro_support::cov::kept(&__carve_frame,3u32)&&(::carve::_macro_support::cov::boolean(&__carve_frame,1u32,long))=>"), "{text}");
    }

    #[test]
    fn a_method_of_self_is_named_as_written_one_of_another_value_with_a_dot() {
        let sites = Ident::new("S", Span::call_site());
        let (_, table) = instrument(
            &syn::parse_quote!({ self.part(x.get(0), Self::whole(), triple::part()) }),
            &sites,
            false,
            true,
        );
        let callees: Vec<&str> = table.calls.iter().map(|c| c.callee.as_str()).collect();
        assert_eq!(callees, ["part", ".get", "Self::whole", "triple::part"]);
    }

    #[test]
    fn the_body_records_through_its_frame_and_closures_through_the_table() {
        let text = rewritten(syn::parse_quote!({
            if a {
                1
            } else {
                2
            };
            let f = move |x| if x { 3 } else { 4 };
            let g = async {
                if b {
                    5
                } else {
                    6
                }
            };
        }));
        assert!(text.starts_with("{#[allow(unused_variables)]let__carve_frame=::carve::_macro_support::cov::Frame::enter(&S);"), "{text}");
        assert!(
            text.contains("cov::boolean(&__carve_frame,0u32,a)"),
            "{text}"
        );
        assert!(text.contains("cov::boolean(&S,2u32,x)"), "{text}");
        assert!(text.contains("cov::boolean(&S,4u32,b)"), "{text}");
        let sites = Ident::new("S", Span::call_site());
        let (block, _) = instrument(&syn::parse_quote!({ if a {} }), &sites, false, false);
        let text = block.to_token_stream().to_string().replace(' ', "");
        assert!(
            text.starts_with("{::carve::_macro_support::cov::enter(&S);"),
            "{text}"
        );
        assert!(!text.contains("__carve_frame"), "{text}");
    }

    #[test]
    fn and_or_evaluate_the_other_operator_under_their_mutant_except_let_chains() {
        let text = rewritten(syn::parse_quote!({ if a && b {} }));
        assert!(
            text.contains("{let__carve_l:bool=::carve::_macro_support::cov::boolean(&__carve_frame,0u32,a);if__carve_l!=::carve::_macro_support::cov::swapped(&__carve_frame,3u32){::carve::_macro_support::cov::boolean(&__carve_frame,2u32,b)}else{__carve_l}}"),
            "{text}"
        );
        let text = rewritten(syn::parse_quote!({ if let Some(x) = o && x {} }));
        assert!(!text.contains("swapped"), "{text}");
    }

    #[test]
    fn logic_mutants_are_told_apart_by_the_right_operands_exits() {
        // `a && (b || c)`: outcomes a 0/1, b 2/3, c 4/5. `||` → `&&` differs
        // when `b` is false and `c` true (c's true); `&&` → `||` when `a` is
        // true and `b || c` false (c's false: it runs only after b false).
        let table = conditions(syn::parse_quote!({ if x > 1 && (ok || y == 2) {} }));
        assert_eq!(
            table,
            [
                "0 Gt #0",
                "2 boolean",
                "4 Eq #1",
                "4 Or `ok || y == 2` kills [4]",
                "5 And `x > 1 && (ok || y == 2)` kills [5]",
            ]
        );
        // `!(a && b)` in a condition swaps the exits: `&&` still differs
        // where `b` is false.
        let table = conditions(syn::parse_quote!({ while !(p && q) {} }));
        assert_eq!(
            table,
            ["0 boolean", "2 boolean", "3 And `p && q` kills [3]"]
        );
    }

    #[test]
    fn constants_of_comparisons_patterns_and_comparing_methods_are_collected() {
        let sites = Ident::new("__CARVE_SITES_t", Span::call_site());
        let (_, table) = instrument(
            &syn::parse_quote!({
                if zone == "GMT" && b[2] != b'-' && 60 > x && c == ':' {}
                if bytes.first() == Some(&b'~') || pair == (b'^', 7) || f(9) == 8 {}
                let unit = match s {
                    "ms" | "msec" => 1,
                    "min" if n < -3 => 60,
                    _ => 0,
                };
                if let Some(rest) = s.strip_prefix("+") {}
                let sum = x + 1000;
                let made = Some("made");
            }),
            &sites,
            false,
            true,
        );
        use ConstantRow::*;
        assert_eq!(
            table.constants.into_iter().collect::<Vec<_>>(),
            [
                Str("+".into()),
                Str("GMT".into()),
                Str("min".into()),
                Str("ms".into()),
                Str("msec".into()),
                Char(':'),
                Byte(b'-'),
                Byte(b'^'),
                Byte(b'~'),
                Int(-3),
                Int(7),
                Int(8),
                Int(9),
                Int(60),
            ]
        );
    }

    #[test]
    fn constants_passed_to_functions_are_collected() {
        // language-tags 0.3.2's `validate`: the script range is only ever
        // passed to `between`, which compares it.
        let sites = Ident::new("__CARVE_SITES_t", Span::call_site());
        let (_, table) = instrument(
            &syn::parse_quote!({
                if !between(script, "Qaaa", "Qabx") && !is_in(&["Zyyy", "Zzzz"], script) {
                    return Err(Error::Script("made"));
                }
                let n = s.trim_end_matches('0').splitn(2, ':').count();
                let ms = s.ends_with(&"ms");
                let parsed = Self::parse(b"v1", check(-5));
                let token = Token::Word("built");
                Ok(Some(7))
            }),
            &sites,
            false,
            true,
        );
        use ConstantRow::*;
        assert_eq!(
            table.constants.into_iter().collect::<Vec<_>>(),
            [
                Str("Qaaa".into()),
                Str("Qabx".into()),
                Str("Zyyy".into()),
                Str("Zzzz".into()),
                Str("ms".into()),
                Str("v1".into()),
                Int(-5),
            ]
        );
    }

    #[test]
    fn conditions_inside_unsafe_blocks_are_listed_as_unmutated() {
        // smallvec 1.16.6's `insert`.
        let block: Block = syn::parse_quote!({
            if cap == 0 {}
            unsafe {
                if index > len {
                    panic!("index exceeds length");
                }
                ptr = ptr.add(index);
                if index < len {}
            }
            if done {}
        });
        let sites: Ident = syn::parse_quote!(SITES);
        let (_, table) = instrument(&block, &sites, false, true);
        let texts: Vec<String> = table
            .unsafe_conditions
            .iter()
            .map(|i| {
                table.branches[table.conditions[*i].branch]
                    .condition
                    .clone()
            })
            .collect();
        assert_eq!(texts, ["index > len", "index < len"]);
    }

    #[test]
    fn conditions_around_closures_with_conditions_keep_their_source_text() {
        let all = texts(syn::parse_quote!({
            let ok = s.chars().all(|c| c.is_alphanumeric() || c == '+') && !s.is_empty();
            for c in s.chars().filter(|c| *c != ' ' && c.is_ascii()) {}
            if s.chars().any(|c| if c > 'a' { c < 'z' } else { false }) {}
        }));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        assert_eq!(
            all,
            [
                "c.is_alphanumeric()",
                "c.is_alphanumeric()",
                "c == '+'",
                "c == '+'",
                "s.chars().all(| c | c.is_alphanumeric() || c == '+')",
                "s.chars().all(| c | c.is_alphanumeric() || c == '+')",
                "!s.is_empty()",
                "!s.is_empty()",
                "*c != ' '",
                "*c != ' '",
                "c.is_ascii()",
                "c.is_ascii()",
                "for c in s.chars().filter(| c | *c != ' ' && c.is_ascii())",
                "for c in s.chars().filter(| c | *c != ' ' && c.is_ascii())",
                "c > 'a'",
                "c > 'a'",
                "s.chars().any(| c | if c > 'a' { c < 'z' } else { false })",
                "s.chars().any(| c | if c > 'a' { c < 'z' } else { false })",
            ]
        );
        assert!(
            all.iter().all(|t| !t.contains("carve")),
            "no text is instrumented code: {all:?}"
        );
    }

    #[test]
    fn prefix_operators_bind_and_binary_ones_keep_their_spaces() {
        let cases: [(Expr, &str); 7] = [
            (
                syn::parse_quote!(match &x {
                    _ => *y,
                }),
                "match &x { _ => *y, }",
            ),
            (
                syn::parse_quote!(for v in &w {
                    s += *v;
                }),
                "for v in &w { s += *v; }",
            ),
            (syn::parse_quote!(&a.b == *c), "&a.b == *c"),
            (syn::parse_quote!(a && b || !c), "a && b || !c"),
            (syn::parse_quote!(a & b * -c - d), "a & b * -c - d"),
            (syn::parse_quote!(f(&x, *y, -z)[-1]), "f(&x, *y, -z)[-1]"),
            (
                syn::parse_quote!(v.iter().any(|c| *c && &c)),
                "v.iter().any(| c | *c && &c)",
            ),
        ];
        for (expr, text) in cases {
            assert_eq!(pretty(&expr), text);
        }
    }
}
