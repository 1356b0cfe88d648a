//! docs-search (skeleton; filled in by its issue).
