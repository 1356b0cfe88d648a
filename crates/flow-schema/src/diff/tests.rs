//! Diff tests.
