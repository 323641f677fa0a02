//! The rkyv contender: archives of the plain structs themselves (rkyv's
//! natural use), validated access (`bytecheck`) and unchecked access.

use crate::plain::{ArchivedState, State};
use rkyv::rancor::Error;
use rkyv::util::AlignedVec;

/// Encode into `out`, reusing its allocation.
pub fn encode(state: &State, out: &mut AlignedVec) {
    let buffer = core::mem::take(out);
    let mut buffer = rkyv::api::high::to_bytes_in::<_, Error>(state, clear(buffer))
        .expect("rkyv serialisation of in-memory data");
    core::mem::swap(out, &mut buffer);
}

fn clear(mut v: AlignedVec) -> AlignedVec {
    v.clear();
    v
}

/// Validated access: runs rkyv's checker over the whole archive.
pub fn access(bytes: &[u8]) -> &ArchivedState {
    rkyv::access::<ArchivedState, Error>(bytes).expect("valid archive")
}

/// Unchecked access.
///
/// # Safety
/// `bytes` must be an archive produced by [`encode`].
pub unsafe fn access_unchecked(bytes: &[u8]) -> &ArchivedState {
    // SAFETY: the caller guarantees the bytes are a valid archive.
    unsafe { rkyv::access_unchecked::<ArchivedState>(bytes) }
}

pub fn decode(archived: &ArchivedState) -> State {
    rkyv::deserialize::<State, Error>(archived).expect("deserialise a valid archive")
}

pub fn sum_paths(state: &ArchivedState) -> f64 {
    let mut sum = 0.0f32;
    for monster in state.monsters.iter() {
        for p in monster.path.iter() {
            sum += p.x.to_native() + p.y.to_native() + p.z.to_native();
        }
    }
    sum as f64
}
