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

/// A map (`map<K, V>`; format.md §5.5): `len` entries of `stride` bytes
/// sorted by key, read without copying. `key` and `value` make an entry's
/// key and value views from the entry's position. Look-up is a binary
/// search (O(log n) key reads); entries are iterated in key order.
/// On a message that was not validated the entries may be out of order:
/// look-ups then may miss, but every read stays inside the message.
pub struct MapView<'a, K, V, M: Mode = Checked> {
    r: Reader<'a, M>,
    offset: u32,
    len: u32,
    stride: u32,
    key: fn(Reader<'a, M>, u32) -> K,
    value: fn(Reader<'a, M>, u32) -> V,
}

// Copy whatever `K` and `V` are: the view holds functions.
impl<K, V, M: Mode> Clone for MapView<'_, K, V, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V, M: Mode> Copy for MapView<'_, K, V, M> {}

impl<'a, K: Ord, V, M: Mode> MapView<'a, K, V, M> {
    #[doc(hidden)]
    pub fn new(
        r: Reader<'a, M>,
        a: crate::ArrayRef,
        stride: u32,
        key: fn(Reader<'a, M>, u32) -> K,
        value: fn(Reader<'a, M>, u32) -> V,
    ) -> Self {
        MapView {
            r,
            offset: a.offset,
            len: a.len,
            stride,
            key,
            value,
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
    fn at(&self, i: u32) -> u32 {
        self.offset + i * self.stride
    }
    /// The value of `key`, if the map has it.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: core::borrow::Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (mut lo, mut hi) = (0u32, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let k = (self.key)(self.r, self.at(mid));
            match k.borrow().cmp(key) {
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
                core::cmp::Ordering::Equal => return Some((self.value)(self.r, self.at(mid))),
            }
        }
        None
    }
    /// Whether the map has `key`.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: core::borrow::Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.get(key).is_some()
    }
    /// Entry `i` in key order.
    pub fn entry(&self, i: usize) -> Option<(K, V)> {
        (i < self.len as usize).then(|| {
            let at = self.at(i as u32);
            ((self.key)(self.r, at), (self.value)(self.r, at))
        })
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (K, V)> + 'a
    where
        K: 'a,
        V: 'a,
    {
        let this = *self;
        (0..self.len).map(move |i| {
            let at = this.at(i);
            ((this.key)(this.r, at), (this.value)(this.r, at))
        })
    }
}
