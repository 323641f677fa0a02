/// A fixed-size little-endian value that can be read from and written to a
/// message, and viewed as a native slice over message bytes.
///
/// Sealed: implemented for the primitive number types only. Every bit
/// pattern of these types is a valid value, which is what makes the native
/// slices sound (`bool` is deliberately excluded; bool arrays are `&[u8]`).
pub trait Scalar: Copy + Default + PartialEq + sealed::Sealed + 'static {
    const SIZE: usize;
    fn from_le_slice(b: &[u8]) -> Self;
    fn write_le(self, out: &mut [u8]);
}

mod sealed {
    pub trait Sealed {}
}

/// A generated enum type: a `#[repr(transparent)]` newtype over a
/// [`Scalar`], valid for every value of that scalar (values unknown to the
/// schema version survive). It lets an SoA column of enums be a native
/// slice of the enum type ([`crate::Reader::newtype_slice`]) instead of a
/// slice of its wire integers.
///
/// # Safety
/// Implement only for a `#[repr(transparent)]` struct whose single field
/// is of type `Repr`, so that the two have the same size, alignment and
/// valid values. The code generators do; nothing else needs to.
pub unsafe trait ScalarNewtype: Copy + 'static {
    type Repr: Scalar;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn from_le_slice(b: &[u8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                out[..core::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

scalar!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);
