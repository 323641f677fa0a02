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
