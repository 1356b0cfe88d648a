//! Project automation (skeleton).
fn main() {}
