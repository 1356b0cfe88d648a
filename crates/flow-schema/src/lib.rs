//! flow-schema (skeleton; filled in by its issue).
