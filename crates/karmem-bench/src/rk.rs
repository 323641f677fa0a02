//! The rkyv contender: archives of the plain structs themselves (rkyv's
//! natural use). rkyv's low-level API is used throughout: the data has no
//! shared pointers, so the high-level API's sharing maps would only add
//! work that rkyv does not need here.

use crate::plain::{ArchivedState, State};
use rkyv::rancor::Error;
use rkyv::util::{with_arena, AlignedVec};

/// Encode into `out`, reusing its allocation (and rkyv's thread-local
/// arena for scratch space).
pub fn encode(state: &State, out: &mut AlignedVec) {
    let mut buffer = core::mem::take(out);
    buffer.clear();
    let mut buffer = with_arena(|arena| {
        rkyv::api::low::to_bytes_in_with_alloc::<_, _, Error>(state, buffer, arena.acquire())
    })
    .expect("rkyv serialisation of in-memory data");
    core::mem::swap(out, &mut buffer);
}

/// Validated access: runs rkyv's checker (bytecheck) over the whole archive.
pub fn access(bytes: &[u8]) -> &ArchivedState {
    rkyv::api::low::access::<ArchivedState, Error>(bytes).expect("valid archive")
}

/// Unchecked access.
///
/// # Safety
/// `bytes` must be an archive produced by [`encode`].
pub unsafe fn access_unchecked(bytes: &[u8]) -> &ArchivedState {
    // SAFETY: the caller guarantees the bytes are a valid archive.
    unsafe { rkyv::access_unchecked::<ArchivedState>(bytes) }
}

/// Deserialize to new objects (rkyv has no deserialize-into-existing).
pub fn decode(archived: &ArchivedState) -> State {
    rkyv::api::low::deserialize::<State, Error>(archived).expect("deserialise a valid archive")
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
