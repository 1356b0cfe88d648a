//! Compiled branch conditions (flow-document §2, runtime §6): what they read, what a true one
//! guarantees, and when two are the same.

use serde_json::Value;

use super::{Literal, PatternRef};

/// A condition.
#[derive(Debug, Clone)]
pub enum Cond<'a> {
    /// Every child holds.
    All(Vec<Cond<'a>>),
    /// Some child holds.
    Any(Vec<Cond<'a>>),
    /// The child does not hold.
    Not(Box<Cond<'a>>),
    /// A comparison.
    Leaf(Leaf<'a>),
}

/// A comparison of a variable with a value.
#[derive(Debug, Clone)]
pub struct Leaf<'a> {
    /// The variable read.
    pub var: &'a str,
    /// The comparison.
    pub op: Op<'a>,
    /// `value` as written (for labels and messages), when there is one.
    pub value: Option<&'a Value>,
}

/// A comparison, with its value read.
#[derive(Debug, Clone)]
pub enum Op<'a> {
    /// `eq`.
    Eq(Literal<'a>),
    /// `ne`.
    Ne(Literal<'a>),
    /// `lt`.
    Lt(f64),
    /// `lte`.
    Lte(f64),
    /// `gt`.
    Gt(f64),
    /// `gte`.
    Gte(f64),
    /// `contains`: the value, and it normalized (runtime §2).
    Contains(&'a str, String),
    /// `startsWith`: the value, and it normalized.
    StartsWith(&'a str, String),
    /// `matches`: an RE2 search.
    Matches(PatternRef<'a>),
    /// `exists`.
    Exists,
    /// `in`.
    In(Vec<Literal<'a>>),
}

impl Op<'_> {
    /// The spelling of the op in documents.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Eq(_) => "eq",
            Self::Ne(_) => "ne",
            Self::Lt(_) => "lt",
            Self::Lte(_) => "lte",
            Self::Gt(_) => "gt",
            Self::Gte(_) => "gte",
            Self::Contains(..) => "contains",
            Self::StartsWith(..) => "startsWith",
            Self::Matches(_) => "matches",
            Self::Exists => "exists",
            Self::In(_) => "in",
        }
    }

    /// The same comparison: the same op and value, numbers by value (`1` is `1.0`).
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Eq(a), Self::Eq(b)) | (Self::Ne(a), Self::Ne(b)) => a == b,
            (Self::Lt(a), Self::Lt(b))
            | (Self::Lte(a), Self::Lte(b))
            | (Self::Gt(a), Self::Gt(b))
            | (Self::Gte(a), Self::Gte(b)) => a == b,
            (Self::Contains(a, _), Self::Contains(b, _))
            | (Self::StartsWith(a, _), Self::StartsWith(b, _)) => a == b,
            (Self::Matches(a), Self::Matches(b)) => a.text == b.text,
            (Self::Exists, Self::Exists) => true,
            (Self::In(a), Self::In(b)) => a == b,
            _ => false,
        }
    }
}

impl<'a> Leaf<'a> {
    /// True when the leaf checks whether its variable is unset: `exists`, or `eq`/`ne` `null`.
    /// Such a read is how an author guards against an unset variable.
    pub fn checks_unset(&self) -> bool {
        matches!(
            self.op,
            Op::Exists | Op::Eq(Literal::Null) | Op::Ne(Literal::Null)
        )
    }

    /// True when the leaf can only hold with its variable set and not null (runtime §6: an
    /// unset or null variable makes `eq` true only for `null`, `ne` true unless the value is
    /// `null`, and every other op false).
    pub fn needs_value(&self) -> bool {
        match &self.op {
            Op::Eq(value) => *value != Literal::Null,
            Op::Ne(value) => *value == Literal::Null,
            _ => true,
        }
    }
}

impl<'a> Cond<'a> {
    /// Calls `each` with every leaf, depth first (children in document order). Conditions
    /// nest at most `MAX_CONDITION_DEPTH` levels in a valid document.
    pub fn for_each_leaf<'p>(&'p self, each: &mut impl FnMut(&'p Leaf<'a>)) {
        match self {
            Self::Leaf(leaf) => each(leaf),
            Self::Not(inner) => inner.for_each_leaf(each),
            Self::All(items) | Self::Any(items) => {
                for item in items {
                    item.for_each_leaf(each);
                }
            }
        }
    }

    /// The variables the condition can only be true with, set and not null: every leaf's
    /// that [`Leaf::needs_value`] of an `all`, those of every child of an `any`, none under
    /// `not`. Each name once, in the order found.
    pub fn guards(&self, out: &mut Vec<&'a str>) {
        match self {
            Self::All(items) => {
                for item in items {
                    item.guards(out);
                }
            }
            Self::Any(items) => {
                let mut common: Option<Vec<&'a str>> = None;
                for item in items {
                    let mut these = Vec::new();
                    item.guards(&mut these);
                    common = Some(match common {
                        None => these,
                        Some(before) => before.into_iter().filter(|n| these.contains(n)).collect(),
                    });
                }
                for name in common.unwrap_or_default() {
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
            }
            Self::Not(_) => {}
            Self::Leaf(leaf) => {
                if leaf.needs_value() && !out.contains(&leaf.var) {
                    out.push(leaf.var);
                }
            }
        }
    }

    /// True when the two conditions are the same (the same structure, ops and values, numbers
    /// compared by value): a case that repeats an earlier one is never taken.
    pub fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::All(a), Self::All(b)) | (Self::Any(a), Self::Any(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.same(b))
            }
            (Self::Not(a), Self::Not(b)) => a.same(b),
            (Self::Leaf(a), Self::Leaf(b)) => a.var == b.var && a.op.same(&b.op),
            _ => false,
        }
    }

    /// Appends to `path` the pointer from this condition down to its `n`th leaf (depth first);
    /// false when there is no such leaf.
    pub fn leaf_path(&self, n: usize, path: &mut String) -> bool {
        let mut count = 0;
        self.find_leaf(n, &mut count, path)
    }

    fn find_leaf(&self, n: usize, count: &mut usize, path: &mut String) -> bool {
        let (key, items): (&str, &[Cond<'a>]) = match self {
            Self::Leaf(_) => {
                *count += 1;
                return *count == n + 1;
            }
            Self::Not(inner) => ("not", std::slice::from_ref(inner.as_ref())),
            Self::All(items) => ("all", items),
            Self::Any(items) => ("any", items),
        };
        let base = path.len();
        for (i, item) in items.iter().enumerate() {
            path.push('/');
            path.push_str(key);
            if !matches!(self, Self::Not(_)) {
                path.push('/');
                path.push_str(&i.to_string());
            }
            if item.find_leaf(n, count, path) {
                return true;
            }
            path.truncate(base);
        }
        false
    }
}
