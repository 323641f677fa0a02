//! Generic zero-copy views over arrays of structs, used by generated code.

use core::marker::PhantomData;

use crate::{Checked, Mode, Reader, Table};

/// A viewer that can be made from an inline struct's position.
pub trait FromInline<'a, M: Mode>: Sized {
    fn from_inline(r: Reader<'a, M>, at: u32) -> Self;
}

/// A viewer that can be made from a table.
pub trait FromTable<'a, M: Mode>: Sized {
    fn from_table(r: Reader<'a, M>, t: Table) -> Self;
}

/// AoS array of inline structs: `len` elements of `stride` bytes.
#[derive(Clone, Copy)]
pub struct InlineArray<'a, V, M: Mode = Checked> {
    r: Reader<'a, M>,
    offset: u32,
    len: u32,
    stride: u32,
    _v: PhantomData<V>,
}

impl<'a, V: FromInline<'a, M>, M: Mode> InlineArray<'a, V, M> {
    #[doc(hidden)]
    pub fn new(r: Reader<'a, M>, offset: u32, len: u32, stride: u32) -> Self {
        InlineArray {
            r,
            offset,
            len,
            stride,
            _v: PhantomData,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn get(&self, i: usize) -> Option<V> {
        (i < self.len as usize)
            .then(|| V::from_inline(self.r, self.offset + i as u32 * self.stride))
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = V> + 'a {
        let (r, offset, stride) = (self.r, self.offset, self.stride);
        (0..self.len).map(move |i| V::from_inline(r, offset + i * stride))
    }
}

/// AoS array of tables: `len` `u32` offsets.
#[derive(Clone, Copy)]
pub struct TableArray<'a, V, M: Mode = Checked> {
    r: Reader<'a, M>,
    offset: u32,
    len: u32,
    _v: PhantomData<V>,
}

impl<'a, V: FromTable<'a, M>, M: Mode> TableArray<'a, V, M> {
    #[doc(hidden)]
    pub fn new(r: Reader<'a, M>, offset: u32, len: u32) -> Self {
        TableArray {
            r,
            offset,
            len,
            _v: PhantomData,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn get(&self, i: usize) -> Option<V> {
        (i < self.len as usize).then(|| {
            let t = self.r.table(self.r.get(self.offset + 4 * i as u32));
            V::from_table(self.r, t)
        })
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = V> + 'a {
        let (r, offset) = (self.r, self.offset);
        (0..self.len).map(move |i| V::from_table(r, r.table(r.get(offset + 4 * i))))
    }
}

/// An array of arrays (`[][]f32`, `[]string`; format.md §5.4): `len`
/// 12-byte array references, each read (and checked, for a checked reader)
/// as an array of `elem_size`-byte elements limited to `limit`, then made
/// into a view `V` by `view` (a slice, a string, an SoA view, another
/// `ArrayOfArrays`...). Reading an element is O(1) and allocates nothing.
pub struct ArrayOfArrays<'a, V, M: Mode = Checked> {
    r: Reader<'a, M>,
    offset: u32,
    len: u32,
    elem_size: u32,
    limit: Option<u32>,
    view: fn(Reader<'a, M>, crate::ArrayRef) -> V,
}

// Copy whatever `V` is: the view holds a function, not a `V`.
impl<V, M: Mode> Clone for ArrayOfArrays<'_, V, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V, M: Mode> Copy for ArrayOfArrays<'_, V, M> {}

impl<'a, V, M: Mode> ArrayOfArrays<'a, V, M> {
    #[doc(hidden)]
    pub fn new(
        r: Reader<'a, M>,
        a: crate::ArrayRef,
        elem_size: u32,
        limit: Option<u32>,
        view: fn(Reader<'a, M>, crate::ArrayRef) -> V,
    ) -> Self {
        ArrayOfArrays {
            r,
            offset: a.offset,
            len: a.len,
            elem_size,
            limit,
            view,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The reference of element `i` (empty when malformed).
    #[inline]
    fn element(&self, i: u32) -> crate::ArrayRef {
        self.r.array(
            self.offset + i * karmem_format::ARRAY_REF_SIZE,
            self.elem_size,
            self.limit,
        )
    }
    #[inline]
    pub fn get(&self, i: usize) -> Option<V> {
        (i < self.len as usize).then(|| (self.view)(self.r, self.element(i as u32)))
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = V> + 'a
    where
        V: 'a,
    {
        let this = *self;
        (0..self.len).map(move |i| (this.view)(this.r, this.element(i)))
    }
}
