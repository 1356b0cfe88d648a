//! Data-driven tests: golden files and lint fixtures.
