//! In-process tests.
