//! Helpers for the end-to-end tests in `tests/`: where the built guest
//! modules are, and a runtime to load them with. The guests are built by
//! `scripts/build-guests.sh` (the Makefile's `guests` target) into
//! `guests/out/`; a missing module is an error that says so.

use std::path::PathBuf;
use std::sync::OnceLock;

use karmem_host::{Access, GuestModule, ModuleOptions, Runtime, RuntimeConfig};

/// The repository's `guests/` directory.
pub fn guests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

/// `guests/out/<file>` (e.g. `e2e-driver.wasm`), or an error telling how to
/// build it.
pub fn guest_path(file: &str) -> Result<PathBuf, String> {
    let path = guests_dir().join("out").join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: run scripts/build-guests.sh (or `make guests`) first",
            path.display()
        ))
    }
}

/// One runtime shared by the tests of a process (the engine and its epoch
/// ticker are meant to be shared; the disk cache is off so tests never
/// depend on state outside the repository).
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            cache_dir: None,
            ..RuntimeConfig::default()
        })
        .expect("create the runtime")
    })
}

/// Load `guests/out/<file>` as module `name`. Panics (this is a test
/// helper) with the reason, including how to build missing guests.
pub fn load(name: &str, file: &str) -> GuestModule {
    let path = guest_path(file).unwrap_or_else(|e| panic!("{e}"));
    runtime()
        .load_file(name, &path)
        .unwrap_or_else(|e| panic!("load {}: {e}", path.display()))
}

/// Options that grant `module` write access to every region it declares,
/// so each module gets exactly what its roles ask for: these tests are
/// about calls between real guests, not about grants (the host's
/// `tests/host/hostile.rs` is; docs/security.md §1).
pub fn trusting(module: &GuestModule, options: ModuleOptions) -> ModuleOptions {
    module
        .descriptor()
        .memories
        .iter()
        .fold(options, |o, m| o.grant(&m.name, Access::ReadWrite))
}

/// Typed host bindings of guests/e2e.km (`--lang rust-host`).
#[allow(dead_code)]
pub mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_host.rs"));
}

/// Typed host bindings of guests/c/polybench/polybench.km, the compute
/// guest of the bounds-check benchmark (benches/bounds.rs).
#[allow(dead_code)]
pub mod polybench {
    include!(concat!(env!("OUT_DIR"), "/polybench_host.rs"));
}

/// Each kernel of guests/c/polybench: its function in `polybench.Kernels`
/// and its symbol in the native build (guests/c/polybench/kernels.h).
pub const KERNELS: [(&str, &str); 4] = [
    ("gemm", "pb_gemm"),
    ("two_mm", "pb_2mm"),
    ("jacobi_2d", "pb_jacobi_2d"),
    ("seidel_2d", "pb_seidel_2d"),
];

/// A kernel of the native build: runs it once and returns its checksum.
pub type NativeKernel = extern "C" fn() -> f64;

/// The native builds of the kernels (scripts/build-guests-c.sh), in
/// guests/out/: clang-19 -O2, and the same without auto-vectorisation
/// (the wasm build has no SIMD).
pub const NATIVE_BUILDS: [&str; 2] = ["polybench-native.so", "polybench-native-scalar.so"];

/// The kernels of [`KERNELS`] from `library`, one of [`NATIVE_BUILDS`]
/// (the same kernels.c as the guest's, built natively), in the same order.
/// The library stays loaded for the life of the process.
pub fn native_kernels(library: &str) -> Result<Vec<NativeKernel>, String> {
    use std::ffi::{CStr, CString};
    use std::os::unix::ffi::OsStrExt as _;
    let path = guest_path(library)?;
    let dl_error = || {
        // SAFETY: dlerror returns null or a NUL-terminated message.
        let e = unsafe { libc::dlerror() };
        if e.is_null() {
            "unknown error".to_string()
        } else {
            // SAFETY: non-null, NUL-terminated (above).
            unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
        }
    };
    let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: the library is kernels.c alone: no initialisers, no
    // dependencies beyond the C ABI; it is never unloaded, so the
    // function pointers below stay valid.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!("dlopen {}: {}", path.display(), dl_error()));
    }
    KERNELS
        .iter()
        .map(|(_, symbol)| {
            let name = CString::new(*symbol).map_err(|e| e.to_string())?;
            // SAFETY: a live handle and a NUL-terminated name.
            let f = unsafe { libc::dlsym(handle, name.as_ptr()) };
            if f.is_null() {
                return Err(format!("{symbol} in {}: {}", path.display(), dl_error()));
            }
            // SAFETY: kernels.h declares every symbol `double f(void)`.
            Ok(unsafe { std::mem::transmute::<*mut libc::c_void, NativeKernel>(f) })
        })
        .collect()
}

/// The guest bindings of guests/e2e.km (`--lang rust-guest`), compiled on
/// the host only so that lints cover generated guest code.
#[allow(dead_code)]
mod e2e_guest {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

#[cfg(test)]
mod tests {
    use super::e2e_guest as g;

    #[derive(Default)]
    struct Reader;

    impl g::shared::Shared for Reader {
        fn inspect(&mut self, _b: g::BlobView<'_>) -> Result<g::Seen, karmem_guest::Error> {
            Ok(g::Seen::default())
        }
        fn scribble(&mut self, _b: g::BlobView<'_>) -> Result<g::Seen, karmem_guest::Error> {
            Ok(g::Seen::default())
        }
        fn stamp(
            &mut self,
            _n: g::NumView<'_, karmem::Trusted>,
        ) -> Result<karmem_guest::RegionSlice, karmem_guest::Error> {
            Ok(karmem_guest::RegionSlice::default())
        }
    }

    /// The descriptor karmem-guest writes (here on the host target, without
    /// a wasm build) is one the host accepts: every rule of abi.md §3 and
    /// every hash, with the module's regions merged across roles.
    #[test]
    fn guest_descriptor_is_accepted_by_the_host() {
        let status = karmem_guest::register(karmem_guest::Module {
            exports: vec![g::shared::export::<Reader>()],
            imports: vec![&g::shared::INFO, &g::counter::INFO, &g::echo::INFO],
        });
        assert_eq!(status, 0);
        let desc = karmem_host::ModuleDesc::decode(karmem_guest::describe_bytes())
            .unwrap_or_else(|e| panic!("the host refused the guest's descriptor: {e}"));
        assert_eq!(desc.exports[0].name, "e2e.Shared");
        assert_eq!(desc.imports.len(), 3);
        // Exported (read) and imported (read-write): the module gets both.
        assert_eq!(desc.memories.len(), 2);
        assert_eq!(desc.access("e2e.shm"), karmem_host::Access::ReadWrite);
        // `reset()` has no result: an empty type in the wire form.
        let reset = &desc.imports[1].functions[1];
        assert_eq!(
            (reset.name.as_str(), reset.result.is_none()),
            ("reset", true)
        );
        assert_eq!(desc.import_id("e2e.Counter", "reset"), Some((1 << 16) | 1));
    }
}
