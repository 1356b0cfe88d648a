//! The two reads the xtasks make of an ELF file, shared by `dist` (is the binary static?) and
//! `order` (where are its functions?): the identification bytes, and bounds-checked
//! little-endian integers at a header offset plus a field offset.

/// Whether `elf` starts like a 64-bit little-endian ELF file.
pub(crate) fn is_64_bit_little_endian(elf: &[u8]) -> bool {
    elf.get(..6) == Some(b"\x7fELF\x02\x01".as_slice())
}

/// The little-endian integer of `len` bytes (at most 8) at `offset + field`, or `None` when it
/// lies outside the file or the offsets overflow.
pub(crate) fn read(elf: &[u8], offset: u64, field: u64, len: u64) -> Option<u64> {
    let start = offset.checked_add(field)?;
    let end = start.checked_add(len)?;
    let bytes = elf.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |value, &byte| (value << 8) | u64::from(byte)),
    )
}
