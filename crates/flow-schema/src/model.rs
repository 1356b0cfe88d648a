//! The version 2 model (skeleton).
