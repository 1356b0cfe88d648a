//! Every ```json flow example in `docs/` validates (filled in by the docs issue).
