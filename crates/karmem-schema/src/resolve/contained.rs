//! The structs a struct holds by value: through a field or a fixed array,
//! inline structs are embedded, and a table field is always written
//! (format.md §8 rule 4, idl.md §4), so a struct's zero value contains
//! them all. Holding itself that way (directly or through others) would
//! make it infinitely large, or its zero value infinite; holding them more
//! than `MAX_NESTING` deep would make every later pass (sizes, layout,
//! SoA flattening, generators, the JSON codec) recurse that deep. Arrays
//! `[]T`, `[<N]T`, optional tables and unions end both: they can be empty.
//!
//! The walk keeps its path in a vector rather than on the call stack: it
//! runs before the limit is known to hold, on chains of any length.

use super::Resolver;
use crate::diagnostic::Diagnostic;
use crate::model::*;
use crate::MAX_NESTING;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Visit {
    New,
    /// On the path being walked, at this index of it.
    OnPath(usize),
    /// Walked: `height` is known.
    Done,
}

/// A struct on the path: the structs it holds still to visit (last
/// first), the field leading to the one being visited, and the longest
/// chain below it found so far.
struct Step {
    id: StructId,
    children: Vec<(StructId, Span)>,
    via: Span,
    height: usize,
}

impl Resolver {
    /// Reports every struct that holds itself, and every struct that
    /// starts a chain of more than `MAX_NESTING` structs held by value
    /// (once, at the struct where the chain first gets too long).
    pub(super) fn check_contained(&mut self) {
        let n = self.schema.structs.len();
        let mut visit = vec![Visit::New; n];
        // Structs on the longest by-value chain starting at each struct,
        // itself included.
        let mut height = vec![0usize; n];
        let mut reported = vec![false; n];
        for start in 0..n {
            if visit[start] != Visit::New {
                continue;
            }
            let mut path = vec![self.step(start)];
            visit[start] = Visit::OnPath(0);
            while let Some(top) = path.last_mut() {
                if let Some((child, via)) = top.children.pop() {
                    top.via = via;
                    match visit[child] {
                        Visit::Done => top.height = top.height.max(height[child] + 1),
                        Visit::OnPath(at) => self.report_cycle(&path[at..], &mut reported),
                        Visit::New => {
                            visit[child] = Visit::OnPath(path.len());
                            path.push(self.step(child));
                        }
                    }
                    continue;
                }
                let done = path
                    .pop()
                    .expect("the loop runs while the path is not empty");
                visit[done.id] = Visit::Done;
                height[done.id] = done.height;
                // A struct of a cycle is reported as one already (its
                // chain is as long as the walk went around the cycle).
                if done.height == MAX_NESTING + 1 && !reported[done.id] {
                    self.report_too_deep(done.id);
                }
                if let Some(parent) = path.last_mut() {
                    parent.height = parent.height.max(done.height + 1);
                }
            }
        }
    }

    fn step(&self, id: StructId) -> Step {
        let mut children: Vec<(StructId, Span)> = self.schema.structs[id]
            .fields
            .iter()
            .filter_map(|f| {
                let c = f.held_struct()?;
                // An optional table can be absent: it ends the chain.
                let absent = f.optional && self.schema.structs[c].kind == StructKind::Table;
                (!absent).then_some((c, f.span))
            })
            .collect();
        // Popped from the end: visit fields in declaration order.
        children.reverse();
        Step {
            id,
            children,
            via: self.schema.structs[id].span,
            height: 1,
        }
    }

    /// `cycle[0]` is held again by the last struct of `cycle` (through its
    /// `via` field): the structs of `cycle` hold each other.
    fn report_cycle(&mut self, cycle: &[Step], reported: &mut [bool]) {
        if cycle.iter().any(|s| reported[s.id]) {
            return;
        }
        for s in cycle {
            reported[s.id] = true;
        }
        let structs = &self.schema.structs;
        let id = cycle[0].id;
        let mut names: Vec<&str> = cycle.iter().map(|s| structs[s.id].name.as_str()).collect();
        names.push(&structs[id].name);
        // A long cycle by its ends: the message stays a line.
        if names.len() > 16 {
            names.splice(8..names.len() - 8, ["…"]);
        }
        let path = names.join(" → ");
        let s = &structs[id];
        let diagnostic = if cycle
            .iter()
            .all(|s| structs[s.id].kind == StructKind::Inline)
        {
            Diagnostic::error(
                s.span,
                format!("inline struct `{}` contains itself: {path}", s.name),
            )
            .with_label("infinitely large")
            .with_hint("make one of them a `table` (stored behind an offset) or use an array")
        } else {
            // Point at the field that closes the cycle.
            let field = cycle.last().map_or(s.span, |s| s.via);
            Diagnostic::error(
                field,
                format!("struct `{}` contains itself: {path}", s.name),
            )
            .with_label("a table field is always written, so the zero value would be infinite")
            .with_hint(format!(
                "make the field optional (`?{}`), or hold it through an array or a union, \
                 which can be empty (`[]{}`)",
                s.name, s.name
            ))
        };
        self.diags.push(diagnostic);
    }

    fn report_too_deep(&mut self, id: StructId) {
        let s = &self.schema.structs[id];
        self.diags.push(
            Diagnostic::error(
                s.span,
                format!(
                    "struct `{}` holds structs nested more than {MAX_NESTING} levels deep",
                    s.name
                ),
            )
            .with_label(format!(
                "starts a chain of {} structs held by value",
                MAX_NESTING + 1
            ))
            .with_hint(format!(
                "inline structs, table fields and fixed arrays nest at most {MAX_NESTING} \
                 levels; hold an inner struct through an optional table (`?T`), an array \
                 or a union"
            )),
        );
    }
}
