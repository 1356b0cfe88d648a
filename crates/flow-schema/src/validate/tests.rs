//! Golden-style tests of `validate`.
