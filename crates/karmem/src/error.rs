use core::fmt;

/// Everything that can go wrong reading, validating or writing a message.
/// Offsets are byte positions in the message, to help locate corruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Shorter than a header, or the header's size exceeds the buffer.
    Truncated { needed: u64, available: u64 },
    /// The buffer does not start at an 8-byte aligned address.
    Misaligned,
    /// The first bytes are not `"KM"`.
    BadMagic,
    /// A format version this library does not read.
    UnsupportedVersion(u8),
    /// Reserved header flags are set.
    BadFlags(u8),
    /// The header's size is not a multiple of 8 or smaller than the header.
    BadSize(u32),
    /// A table's offset or header is invalid.
    MalformedTable { offset: u32 },
    /// An array reference, SoA directory or column is invalid.
    MalformedArray { offset: u32 },
    /// A limited array holds more than its limit.
    LimitExceeded { offset: u32, len: u32, limit: u32 },
    /// Text that is not valid UTF-8 / UTF-16.
    InvalidText { offset: u32 },
    /// A `bool` byte other than 0 or 1.
    InvalidBool { offset: u32 },
    /// A union tag the schema does not know, or a tag without a value.
    InvalidUnion { offset: u32, tag: u32 },
    /// More directory entries than `Limits::max_directory_entries`.
    DirectoryTooLarge { offset: u32, entries: u32 },
    /// Nesting deeper than `Limits::max_depth`.
    DepthExceeded,
    /// Validation or decoding visited more bytes than the traversal budget
    /// allows (offsets reused to amplify work).
    BudgetExceeded,
    /// The message would exceed 4 GiB, or a limited array is too long.
    TooLarge,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { needed, available } => write!(
                f,
                "message truncated: needs {needed} bytes, buffer has {available}"
            ),
            Error::Misaligned => f.write_str(
                "buffer is not aligned (a message needs 8 bytes, copy it into karmem::AlignedBuf; a writer's buffer 64)",
            ),
            Error::BadMagic => f.write_str("not a Karmem message (bad magic)"),
            Error::UnsupportedVersion(v) => write!(f, "unsupported format version {v}"),
            Error::BadFlags(b) => write!(f, "reserved header flags set ({b:#04x})"),
            Error::BadSize(s) => write!(f, "invalid message size {s} in header"),
            Error::MalformedTable { offset } => write!(f, "malformed table at offset {offset}"),
            Error::MalformedArray { offset } => write!(f, "malformed array at offset {offset}"),
            Error::LimitExceeded { offset, len, limit } => write!(
                f,
                "array at offset {offset} has {len} elements, limit is {limit}"
            ),
            Error::InvalidText { offset } => write!(f, "invalid text at offset {offset}"),
            Error::InvalidBool { offset } => write!(f, "invalid bool at offset {offset}"),
            Error::InvalidUnion { offset, tag } => {
                write!(f, "invalid union tag {tag} at offset {offset}")
            }
            Error::DirectoryTooLarge { offset, entries } => write!(
                f,
                "SoA directory or bunch table at offset {offset} has {entries} entries, over the limit"
            ),
            Error::DepthExceeded => f.write_str("message nesting exceeds the depth limit"),
            Error::BudgetExceeded => f.write_str("message exceeds the traversal budget"),
            Error::TooLarge => f.write_str("message too large"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
