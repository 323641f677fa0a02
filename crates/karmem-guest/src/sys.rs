//! The `karmem` imports (docs/abi.md §4). Off wasm32 there is no host: the
//! stand-ins report "no exporter bound" and drop results, so code that uses
//! them still builds and its pure parts can be unit-tested.

#[cfg(target_arch = "wasm32")]
mod imp {
    #[link(wasm_import_module = "karmem")]
    extern "C" {
        #[link_name = "call"]
        fn karmem_call(function: i32, args: i32, count: i32, out: i32, out_cap: i32) -> i32;
        #[link_name = "take"]
        fn karmem_take(index: i32, dst: i32, len: i32) -> i32;
        #[link_name = "result"]
        fn karmem_result(ptr: i32, len: i32);
        #[link_name = "error"]
        fn karmem_error(ptr: i32, len: i32);
        #[link_name = "log"]
        fn karmem_log(level: i32, ptr: i32, len: i32);
    }

    // SAFETY (all below): the host checks every pointer/length pair against
    // the guest's memory (abi.md §4); the callers pass live buffers.

    pub fn call(function: u32, args: &[[u32; 2]], out: &mut [[u32; 4]]) -> i32 {
        unsafe {
            karmem_call(
                function as i32,
                args.as_ptr() as i32,
                args.len() as i32,
                out.as_mut_ptr() as i32,
                out.len() as i32,
            )
        }
    }

    pub fn take(index: u32, dst: &mut [u8]) -> i32 {
        unsafe { karmem_take(index as i32, dst.as_mut_ptr() as i32, dst.len() as i32) }
    }

    pub fn result(ptr: usize, len: usize) {
        unsafe { karmem_result(ptr as i32, len as i32) }
    }

    pub fn error(msg: &str) {
        unsafe { karmem_error(msg.as_ptr() as i32, msg.len() as i32) }
    }

    pub fn log(level: u32, msg: &str) {
        unsafe { karmem_log(level as i32, msg.as_ptr() as i32, msg.len() as i32) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    /// "No exporter is bound to this import" (abi.md §5.3).
    pub fn call(_function: u32, _args: &[[u32; 2]], _out: &mut [[u32; 4]]) -> i32 {
        -5
    }

    pub fn take(_index: u32, _dst: &mut [u8]) -> i32 {
        -1
    }

    pub fn result(_ptr: usize, _len: usize) {}

    pub fn error(_msg: &str) {}

    pub fn log(_level: u32, _msg: &str) {}
}

pub use imp::*;
