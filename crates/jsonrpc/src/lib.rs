//! jsonrpc (skeleton; filled in by its issue).
