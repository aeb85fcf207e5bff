//! Counts that add up without wrapping around: partials read from files can
//! hold any number, and a sum past 64 bits is an error, not a small count.

/// What a sum too big says.
pub(crate) fn too_many() -> String {
    "a count is too big to add up (more than 2^64 - 1)".to_owned()
}

/// `a + b`, or an error when the sum does not fit.
pub(crate) fn add(a: u64, b: u64) -> Result<u64, String> {
    a.checked_add(b).ok_or_else(too_many)
}
