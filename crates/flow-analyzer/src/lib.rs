//! flow-analyzer (skeleton; filled in by its issue).
