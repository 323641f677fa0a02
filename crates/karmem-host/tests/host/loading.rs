//! Loading and binding: malformed modules, imports, descriptors, ABI
//! versions, compatibility; and the precompiled-module cache.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use karmem_host::{
    Access, AppBuilder, CacheOutcome, Error, MemoryLog, OptLevel, Output, Pattern, Runtime,
    RuntimeConfig,
};

use crate::common::*;

fn ok_guest(iface_name: &str) -> Guest {
    replier(iface_name, "ok")
}

fn load_err(wasm: &[u8]) -> Error {
    match runtime().load("m", wasm) {
        Ok(_) => panic!("loaded"),
        Err(e) => e,
    }
}

#[test]
fn garbage_bytes_are_an_invalid_module() {
    for bytes in [
        &b"not wasm at all"[..],
        b"\0asm\x01\0\0\0\x01\xff",
        b"",
        b"\0asm",
    ] {
        assert!(
            matches!(load_err(bytes), Error::InvalidModule { .. }),
            "{bytes:?}"
        );
    }
}

#[test]
fn imports_other_than_karmem_and_wasi_are_refused() {
    let mut g = ok_guest("t.A");
    g.extra_imports = "(import \"env\" \"abort\" (func))\n".into();
    match load_err(g.wat().as_bytes()) {
        Error::UnsatisfiedImport { module, import, .. } => {
            assert_eq!((module.as_str(), import.as_str()), ("m", "env.abort"))
        }
        e => panic!("{e:?}"),
    }
    let mut g = ok_guest("t.A");
    g.extra_imports = "(import \"karmem\" \"teleport\" (func))\n".into();
    assert!(
        matches!(load_err(g.wat().as_bytes()), Error::UnsatisfiedImport { import, .. } if import == "karmem.teleport")
    );
    // The right name with the wrong type.
    let wat = ok_guest("t.A").wat().replace(
        "(import \"karmem\" \"log\" (func $log (param i32 i32 i32)))",
        "(import \"karmem\" \"log\" (func $log (param i32 i32)))",
    );
    let e = load_err(wat.replace("(call $log", "(call $nothing").as_bytes());
    assert!(
        matches!(&e, Error::UnsatisfiedImport { import, reason, .. } if import == "karmem.log" && reason.contains("(i32, i32, i32)")),
        "{e:?}"
    );
}

#[test]
fn unknown_wasi_imports_get_enosys_stubs() {
    let mut g = Guest::new(vec![iface("t.W", Pattern::Direct, vec![], vec![simple("sock")])], vec![]).func(
        "t.W",
        "sock",
        "(i32.store (i32.const 2048) (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 2100))) (call $reply (i32.const 2048) (i32.const 4))",
    );
    g.extra_imports = "(import \"wasi_snapshot_preview1\" \"sock_accept\" (func $sock_accept (param i32 i32 i32) (result i32)))\n".into();
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(g.load("w"));
    let app = b.build().unwrap();
    assert_eq!(
        app.call("w", "t.W", "sock", &[]).unwrap(),
        Output::Bytes(52u32.to_le_bytes().to_vec())
    );
}

#[test]
fn a_wasi_command_is_not_a_reactor() {
    let mut g = ok_guest("t.A");
    g.start_export = true;
    assert!(matches!(load_err(g.wat().as_bytes()), Error::NotAReactor { module } if module == "m"));
}

#[test]
fn memory_rules() {
    let no_export = ok_guest("t.A")
        .wat()
        .replace("(memory (export \"memory\") 2)", "(memory 2)");
    assert!(
        matches!(load_err(no_export.as_bytes()), Error::InvalidModule { message, .. } if message.contains("`memory`"))
    );
    let two = ok_guest("t.A").wat().replace(
        "(memory (export \"memory\") 2)",
        "(memory (export \"memory\") 2) (memory 1)",
    );
    assert!(
        matches!(load_err(two.as_bytes()), Error::InvalidModule { message, .. } if message.contains("2 memories"))
    );
    let reserved = ok_guest("t.A")
        .extra("(global (export \"__karmem_ro_fault\") i32 (i32.const 0))")
        .wat();
    assert!(
        matches!(load_err(reserved.as_bytes()), Error::InvalidModule { message, .. } if message.contains("reserved"))
    );
    let missing = ok_guest("t.A")
        .wat()
        .replace("(export \"karmem_dispatch\")", "");
    assert!(
        matches!(load_err(missing.as_bytes()), Error::InvalidModule { message, .. } if message.contains("karmem_dispatch"))
    );
}

#[test]
fn abi_version_mismatch() {
    let mut g = ok_guest("t.A");
    g.abi_version = 2;
    assert_eq!(
        load_err(g.wat().as_bytes()),
        Error::AbiMismatch {
            module: "m".into(),
            found: 2,
            supported: 1
        }
    );
    let none = ok_guest("t.A")
        .wat()
        .replace("(export \"karmem_abi_version\")", "");
    assert_eq!(
        load_err(none.as_bytes()),
        Error::AbiMismatch {
            module: "m".into(),
            found: 0,
            supported: 1
        }
    );
}

#[test]
fn malformed_descriptors() {
    let g = ok_guest("t.A");
    let e = load_err(
        g.wat_with_desc(b"definitely not a karmem message")
            .as_bytes(),
    );
    assert!(matches!(e, Error::BadDescriptor { .. }), "{e:?}");
    let mut wrong_hash = g.desc.clone();
    wrong_hash.exports[0].hash ^= 0xff;
    let e = load_err(g.wat_with_desc(&wrong_hash.encode()).as_bytes());
    assert!(
        matches!(&e, Error::BadDescriptor { message, .. } if message.contains("hash")),
        "{e:?}"
    );
    let out_of_range = g.wat().replace("(i64.const 4096", "(i64.const 0xfffff000");
    let out_of_range = out_of_range.replace(
        &format!(
            "(i64.const {})",
            4096u64 | ((g.desc.encode().len() as u64) << 32)
        ),
        &format!("(i64.const {})", 0x1_0000u64 | (0xffff_0000u64 << 32)),
    );
    assert!(matches!(
        load_err(out_of_range.as_bytes()),
        Error::BadDescriptor { .. }
    ));
    // A trap during start-up names the step.
    let mut init_fails = g;
    init_fails.init = "(i32.const 7)".into();
    let init_fails = init_fails.wat();
    assert!(
        matches!(load_err(init_fails.as_bytes()), Error::Startup { step, .. } if step == "karmem_init")
    );
}

fn app_err(b: &AppBuilder) -> Error {
    match b.build() {
        Ok(_) => panic!("built"),
        Err(e) => e,
    }
}

#[test]
fn binding_errors() {
    let api = iface("t.Api", Pattern::Direct, vec![], vec![simple("ok")]);
    let caller = Guest::new(
        vec![iface("t.C", Pattern::Direct, vec![], vec![simple("x")])],
        vec![api.clone()],
    )
    .load("caller");
    let log = Arc::new(MemoryLog::new());

    // Nobody exports t.Api.
    let mut b = builder(&log);
    b.module(caller.clone());
    assert!(
        matches!(app_err(&b), Error::Binding { module, interface, message } if module == "caller" && interface == "t.Api" && message.contains("unsatisfied"))
    );

    // Two exporters of a direct interface and no choice.
    let mut b = builder(&log);
    b.module(caller.clone())
        .module(ok_guest("t.Api").load("x1"))
        .module(ok_guest("t.Api").load("x2"));
    assert!(matches!(app_err(&b), Error::Binding { message, .. } if message.contains("ambiguous")));
    b.bind("caller", "t.Api", "x2");
    assert!(b.build().is_ok());
    b.bind("caller", "t.Api", "nobody");
    assert!(matches!(app_err(&b), Error::UnknownModule(m) if m == "nobody"));

    // Same name, different signature, not dynamic.
    let other = Guest::new(
        vec![iface(
            "t.Api",
            Pattern::Direct,
            vec![],
            vec![simple("ok"), simple("more")],
        )],
        vec![],
    )
    .func("t.Api", "ok", "(i32.const 0)")
    .load("changed");
    let mut b = builder(&log);
    b.module(caller.clone()).module(other);
    assert!(
        matches!(app_err(&b), Error::IncompatibleInterface { interface, importer, exporter, .. } if interface == "t.Api" && importer == "caller" && exporter == "changed")
    );

    // One region declared two ways.
    let r1 = Guest::new(
        vec![iface(
            "t.R1",
            Pattern::Direct,
            vec![memory("t.m", Access::Read, Access::Read, 1)],
            vec![simple("ok")],
        )],
        vec![],
    )
    .load("r1");
    let r2 = Guest::new(
        vec![iface(
            "t.R2",
            Pattern::Direct,
            vec![memory("t.m", Access::Read, Access::Read, 2)],
            vec![simple("ok")],
        )],
        vec![],
    )
    .load("r2");
    let mut b = builder(&log);
    b.module(r1.clone()).module(r2);
    assert!(
        matches!(app_err(&b), Error::IncompatibleMemory { region, first, second, reason } if region == "t.m" && first == "r1" && second == "r2" && reason.contains("pages"))
    );

    // Duplicate names.
    let mut b = builder(&log);
    b.module(r1.clone()).module(r1);
    assert!(matches!(app_err(&b), Error::DuplicateModule(m) if m == "r1"));
}

#[test]
fn dynamic_interfaces_match_by_function_name() {
    let mut old = iface(
        "t.Dyn",
        Pattern::Direct,
        vec![],
        vec![simple("ok"), simple("newer")],
    );
    old.dynamic = true;
    let mut new = iface("t.Dyn", Pattern::Direct, vec![], vec![simple("ok")]);
    new.dynamic = true;
    // The importer knows `newer`, the exporter does not.
    let caller = Guest::new(vec![iface("t.C", Pattern::Direct, vec![], vec![simple("x")])], vec![old]).func(
        "t.C",
        "x",
        "(drop (call $call (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 1024) (i32.const 1)))
         (call $reply (i32.const 1024) (i32.const 16))",
    );
    let exporter = Guest::new(vec![new], vec![]).func("t.Dyn", "ok", "(i32.const 0)");
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(caller.load("caller"))
        .module(exporter.load("exporter"));
    let app = b.build().unwrap();
    let Output::Bytes(out) = app.call("caller", "t.C", "x", &[]).unwrap() else {
        panic!()
    };
    assert_eq!(
        &out[..8],
        &[1, 0, 0, 0, 1, 0, 0, 0],
        "UNKNOWN_FUNCTION from callee 1"
    );
}

/// The cache directory holds machine code the runtime maps and runs, so
/// it must be a directory of this user that nobody else can write:
/// another user's directory and a file are refused, and a directory of
/// ours that others may read or write is tightened to 0700 on open.
#[test]
fn cache_directory_must_be_ours_and_private() {
    let with_cache = |dir: &std::path::Path| {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(dir.to_path_buf()),
            ..RuntimeConfig::default()
        })
    };
    let root = tempfile::tempdir().unwrap();

    let file = root.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    match with_cache(&file) {
        Err(Error::Io { path, .. }) => assert_eq!(path, file),
        other => panic!("a file as cache directory: {:?}", other.err()),
    }

    let open = root.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    with_cache(&open).unwrap();
    assert_eq!(
        std::fs::metadata(&open).unwrap().permissions().mode() & 0o777,
        0o700,
        "a group- and world-writable cache directory is tightened"
    );

    let foreign = root.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    // Giving a directory away needs root (CI and this machine run as root);
    // elsewhere this part cannot be set up and is skipped, saying so.
    match std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)) {
        Ok(()) => match with_cache(&foreign) {
            Err(Error::Io { path, message }) => {
                assert_eq!(path, foreign);
                assert!(message.contains("owned by this user"), "{message}");
            }
            other => panic!("another user's cache directory: {:?}", other.err()),
        },
        Err(e) => eprintln!("skipped the other-owner case: chown failed ({e})"),
    }
}

#[test]
fn cache_hit_miss_and_invalidation() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("modules");
    let config = RuntimeConfig {
        cache_dir: Some(cache.clone()),
        ..RuntimeConfig::default()
    };
    let rt = Runtime::new(config.clone()).unwrap();
    let wat = ok_guest("t.Cache").wat();
    assert_eq!(
        rt.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Miss
    );
    assert_eq!(
        rt.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Hit
    );
    assert_eq!(
        std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777,
        0o700
    );

    // Changed module bytes: another key.
    let changed = ok_guest("t.Cache2").wat();
    assert_eq!(
        rt.load("b", changed.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Miss
    );

    // A new runtime with the same config hits; another engine config misses.
    let rt2 = Runtime::new(config.clone()).unwrap();
    assert_eq!(
        rt2.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Hit
    );
    let rt3 = Runtime::new(RuntimeConfig {
        opt_level: OptLevel::None,
        ..config.clone()
    })
    .unwrap();
    assert_eq!(
        rt3.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Miss
    );
    // The bounds-check strategy is compiled into the code: another key.
    let explicit = Runtime::new(RuntimeConfig {
        bounds_checks: karmem_host::BoundsChecks::Explicit {
            reservation: 64 << 20,
        },
        ..config.clone()
    })
    .unwrap();
    assert_eq!(
        explicit.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Miss
    );

    // Corrupt entries are recompiled and replaced: a flipped byte in the
    // middle (only the digest notices), and a truncated file.
    let cwasm: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect();
    assert_eq!(cwasm.len(), 4);
    for p in &cwasm {
        let mut bytes = std::fs::read(p).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x5a;
        std::fs::write(p, &bytes).unwrap();
    }
    let rt4 = Runtime::new(config.clone()).unwrap();
    assert_eq!(
        rt4.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Replaced
    );
    assert_eq!(
        rt4.load("a", wat.as_bytes()).unwrap().cache_outcome(),
        CacheOutcome::Hit
    );
    for p in &cwasm {
        let len = std::fs::metadata(p).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(p)
            .unwrap()
            .set_len(len / 3)
            .unwrap();
    }
    let rt5 = Runtime::new(config).unwrap();
    let m = rt5.load("a", wat.as_bytes()).unwrap();
    assert_eq!(m.cache_outcome(), CacheOutcome::Replaced);
    assert_eq!(rt5.cache_stats().replaced, 1);
    // The replaced module runs.
    let app = AppBuilder::new(&rt5).module(m).build().unwrap();
    assert_eq!(
        app.call("a", "t.Cache", "ok", &[]).unwrap(),
        Output::Bytes(b"ok".to_vec())
    );
}

#[test]
fn initialize_runs_first() {
    let mut g = ok_guest("t.I")
        .extra("(global $ready (mut i32) (i32.const 0)) (func (export \"_initialize\") (global.set $ready (i32.const 1)))");
    // karmem_init fails unless `_initialize` ran before it.
    g.init = "(i32.eqz (global.get $ready))".into();
    assert!(runtime().load("init", g.wat().as_bytes()).is_ok());
}
