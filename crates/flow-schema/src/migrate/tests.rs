//! Migration tests.
