//! `step_shapes!`: the one declaration of the shape of a flow step.
//!
//! `model.rs` declares the [`Step`](crate::Step) enum inside this macro: each kind with its
//! spelling, and each property with its JSON name, whether it is required, its Rust type and
//! its `serde`/`schemars` attributes. From that one declaration the macro writes
//! - the `Step` enum itself, from which `schemars` generates the JSON Schema;
//! - [`StepKind`](crate::StepKind): the kinds in specification order, their spellings, and
//!   each kind's properties (with `kind` after `id`) and required properties, which the
//!   validator's tables are and which `botmesh-flow-analyzer` uses as its kind enum.
//!
//! So a new kind or property is one edit of `model.rs` (plus its value rule in `validate.rs`
//! and its tests); the compiler then points at every `match` on the kinds. A test holds the
//! JSON Schema to the tables kind by kind and property by property (`schema/tests.rs`), and
//! `cargo xtask tidy` fails on another list of the kinds.
//!
//! The syntax of one kind, inside `pub enum Step { … }`:
//!
//! ```text
//! /// Doc of the variant.
//! Ask = "ask" {
//!     /// Doc of the id.
//!     #[schemars(…)]
//!     required id: String,
//!     /// A property: `required` or `optional`, the Rust name, `as "jsonName"` when the JSON
//!     /// name is not the Rust name, the type.
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     optional retry_text as "retryText": Option<String>,
//! }
//! ```

/// Declares `Step` and `StepKind` (see the module docs).
macro_rules! step_shapes {
    (
        $(#[$enum_meta:meta])*
        pub enum Step {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident = $kind:literal {
                    $(#[$id_meta:meta])*
                    required id: $id_type:ty,
                    $(
                        $(#[$field_meta:meta])*
                        $presence:ident $field:ident $(as $json:literal)?: $field_type:ty
                    ),* $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[$enum_meta])*
        pub enum Step {
            $(
                $(#[$variant_meta])*
                #[serde(rename = $kind)]
                $variant {
                    $(#[$id_meta])*
                    id: $id_type,
                    $(
                        $(#[$field_meta])*
                        $(#[serde(rename = $json)])?
                        $field: $field_type,
                    )*
                },
            )*
        }

        impl Step {
            /// The step's kind.
            pub fn kind(&self) -> StepKind {
                match self {
                    $(Self::$variant { .. } => StepKind::$variant,)*
                }
            }
        }

        /// The kind of a step (its `kind` property), declared with [`Step`]: the validator's
        /// tables and the analyzer's kinds are this type.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum StepKind {
            $(
                #[doc = concat!("`", $kind, "`.")]
                $variant,
            )*
        }

        impl StepKind {
            /// Every kind, in the order of the specification (and of the schema's `oneOf`).
            pub const ALL: &'static [StepKind] = &[$(StepKind::$variant),*];

            /// The spelling of every kind, in the order of [`StepKind::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($kind),*];

            /// The kind spelled `name`, if any.
            pub fn parse(name: &str) -> Option<Self> {
                match name {
                    $($kind => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// The spelling used in documents.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $kind,)*
                }
            }

            /// The properties of a step of this kind, in declaration order, `kind` after `id`
            /// (the order the validator checks them in).
            pub const fn fields(self) -> &'static [&'static str] {
                match self {
                    $(Self::$variant => &["id", "kind", $($crate::step_shape::json_name!($field $(as $json)?)),*],)*
                }
            }

            /// The required properties of a step of this kind, in declaration order, `id` and
            /// `kind` first.
            pub const fn required(self) -> &'static [&'static str] {
                match self {
                    $(Self::$variant => $crate::step_shape::required_names!(
                        ["id", "kind"] $($presence $crate::step_shape::json_name!($field $(as $json)?);)*
                    ),)*
                }
            }
        }
    };
}

/// The JSON name of a property: its `as` name, or else its Rust name.
macro_rules! json_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident as $json:literal) => {
        $json
    };
}

/// The names marked `required` (after the ones given first), as a slice.
macro_rules! required_names {
    ([$($done:expr),*]) => {
        &[$($done),*]
    };
    ([$($done:expr),*] required $name:expr; $($rest:tt)*) => {
        $crate::step_shape::required_names!([$($done,)* $name] $($rest)*)
    };
    ([$($done:expr),*] optional $name:expr; $($rest:tt)*) => {
        $crate::step_shape::required_names!([$($done),*] $($rest)*)
    };
}

pub(crate) use {json_name, required_names, step_shapes};
