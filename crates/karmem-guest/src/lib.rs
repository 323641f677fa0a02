//! The guest side of the Karmem guest ABI (docs/abi.md) for Rust modules
//! built for `wasm32-unknown-unknown`. `no_std` + `alloc`.
//!
//! A module author never calls the ABI directly: `karmem build --lang
//! rust-guest` generates, per interface, a trait to implement, a client to
//! call it, and the static description this library turns into the module
//! descriptor; one [`module!`] call says what the module exports and
//! imports. This crate provides:
//!
//! * the exports `karmem_abi_version`, `karmem_init` (from [`module!`]),
//!   `karmem_describe`, `karmem_alloc`, `karmem_bind_memory`,
//!   `karmem_bind_access`, `karmem_dispatch` (wasm32 only);
//! * wrappers of the `karmem` imports ([`log`], the call machinery behind
//!   the generated clients);
//! * the window table ([`window`]), and a global allocator (feature
//!   `allocator`) that frees argument memory after each dispatch.
//!
//! On other targets everything compiles (so workspace lints and unit tests
//! run on the host), but calls into the host report [`CallError::NoHost`].

// Unit tests run on the host with std's test harness.
#![cfg_attr(not(test), no_std)]

extern crate alloc;

mod desc;
// The allocator's bookkeeping is unit-tested on the host too.
#[cfg(any(test, all(target_arch = "wasm32", feature = "allocator")))]
mod heap;
mod rt;
mod sys;

pub use desc::{FuncInfo, IfaceInfo, RegionInfo, ValueInfo};
pub use rt::{
    arg, arg_region_view, arg_view, call, call_one, describe_bytes, log, register, reply,
    reply_none, reply_region, state, window, Arg, CallError, CalleeReply, DispatchFn,
    ErasedMessage, Error, Export, Message, Module, Reply, Status, Window,
};

/// What the generated data types need in a `no_std` crate (they name
/// `Vec`, `String` and `Box` unqualified, as the std prelude does).
pub mod prelude {
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

/// A message placed in a shared region: its offset from the region's start
/// and its length. The same value means the same bytes in every module
/// (each maps the region at its own address).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegionSlice {
    pub offset: u32,
    pub len: u32,
}

#[doc(hidden)]
pub mod __private {
    pub use alloc::boxed::Box;
    pub use alloc::vec::Vec;
    pub use core::any::Any;
}

/// Declares what this module exports (with which implementation) and
/// imports, and defines `karmem_init`. Call it once, at the crate root:
///
/// ```ignore
/// karmem_guest::module! {
///     exports: [arena::bot::export::<MyBot>()],
///     imports: [arena::world::IMPORT],
/// }
/// ```
///
/// Each export is a [`Export`] (the generated `export::<T>()` of an
/// interface, `T: Default + the interface's trait`; one `T` value is
/// created on the first call and lives as long as the instance); each
/// import is an [`IfaceInfo`] (the generated `IMPORT` of an interface).
#[macro_export]
macro_rules! module {
    (exports: [$($export:expr),* $(,)?], imports: [$($import:expr),* $(,)?] $(,)?) => {
        #[cfg(target_arch = "wasm32")]
        #[no_mangle]
        pub extern "C" fn karmem_init() -> i32 {
            $crate::register($crate::Module {
                exports: $crate::__private::Vec::from([$($export),*]),
                imports: $crate::__private::Vec::from([$(&$import),*]),
            })
        }
    };
}
