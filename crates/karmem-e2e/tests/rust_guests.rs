//! End-to-end tests of Rust guests (guests/rust/e2e-*, built by
//! scripts/build-guests.sh) on karmem-host, called through the generated
//! host bindings (`--lang rust-host`) and calling each other through the
//! generated guest bindings (`--lang rust-guest`).

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use karmem_e2e::e2e::{self, Blob, Num, Text};
use karmem_e2e::load;
use karmem_host::{App, AppBuilder, Error, GuestModule, ModuleOptions, Status};

/// driver (imports Echo, Counter, Workers, Dyn) + service (exports Echo,
/// Counter, Pooled, Shared, Workers) + worker + trapper (Workers) + dynold
/// (the old Dyn), and a second driver sharing the singleton Counter.
fn app() -> App {
    let driver = load("driver", "e2e-driver.wasm");
    let mut b = AppBuilder::new(karmem_e2e::runtime());
    let mut add = |m: GuestModule, options: ModuleOptions| {
        // Each module gets the access its roles ask for (karmem_e2e::trusting).
        let options = karmem_e2e::trusting(&m, options);
        b.module_with(m, options);
    };
    add(driver.clone(), ModuleOptions::default());
    add(driver.renamed("driver2"), ModuleOptions::default());
    add(
        load("service", "e2e-service.wasm"),
        ModuleOptions::default(),
    );
    add(load("worker", "e2e-worker.wasm"), ModuleOptions::default());
    // A shorter deadline than its callers': a caller's deadline covers its
    // callees (abi.md §7), so the trapper's TIMEOUT must come first.
    add(
        load("trapper", "e2e-trapper.wasm"),
        ModuleOptions {
            timeout: Duration::from_millis(200),
            ..ModuleOptions::default()
        },
    );
    add(load("dynold", "e2e-dynold.wasm"), ModuleOptions::default());
    b.build().unwrap_or_else(|e| panic!("build the app: {e}"))
}

fn run(app: &App, module: &str, cmd: &str) -> String {
    let driver = e2e::driver::client(app, module).unwrap();
    let reply = driver
        .run(&Text {
            value: cmd.to_string(),
        })
        .unwrap_or_else(|e| panic!("{module} run {cmd}: {e}"));
    reply.decode().unwrap().value
}

#[test]
fn host_calls_a_rust_guest_through_typed_bindings() {
    let app = app();
    let echo = e2e::echo::client(&app, "service").unwrap();
    let reply = echo
        .echo(&Text {
            value: "hello".into(),
        })
        .unwrap();
    assert_eq!(reply.view().unwrap().value(), "hello");
    assert!(reply.region.is_none());
    // A function without parameters or result (the call benchmarks' nop).
    echo.nop().unwrap();
    // An application error arrives as Error::Application with the message.
    match echo.fail(&Text { value: "x".into() }) {
        Err(Error::Application {
            status, message, ..
        }) => {
            assert_eq!(status, Status::ApplicationError);
            assert_eq!(message, "failed on purpose: x");
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("fail succeeded"),
    }
}

#[test]
fn guest_calls_guest_directly() {
    let app = app();
    assert_eq!(run(&app, "driver", "echo:ping"), "echo=ping");
    // The call benchmarks' baselines: no guest→guest call, then a call
    // without parameters or result.
    assert_eq!(run(&app, "driver", "idle"), "");
    assert_eq!(run(&app, "driver", "nop"), "");
    // The callee's status and message reach the calling guest (the host
    // prefixes the message with where it happened).
    let failed = run(&app, "driver", "fail:boom");
    assert!(failed.starts_with("ApplicationError: "), "{failed}");
    assert!(failed.ends_with("failed on purpose: boom"), "{failed}");
}

#[test]
fn fan_out_keeps_results_when_one_member_traps() {
    let app = app();
    let out = run(&app, "driver", "fanout:20");
    let lines: Vec<&str> = out.lines().collect();
    // Manifest order: service (2), worker (3), trapper (4).
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "2 Ok service:40");
    assert_eq!(lines[1], "3 Ok worker:21");
    assert!(lines[2].starts_with("4 Trap"), "{out}");
    // The trapping member was replaced by a fresh instance: it traps again,
    // the others still answer.
    assert_eq!(run(&app, "driver", "fanout:1").lines().count(), 3);
    // The same through the host's own fan-out bindings.
    let all = e2e::workers::all(&app).unwrap();
    let results = all.work(&Num { value: 5 });
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[1].result.as_ref().unwrap().decode().unwrap().value,
        "worker:6"
    );
    assert!(matches!(results[2].result, Err(Error::Trap { .. })));
}

#[test]
fn fan_out_reports_timeout_and_memory_limit_per_callee() {
    let app = app();
    for (n, status) in [(1000, "Timeout"), (2000, "MemoryLimit")] {
        let out = run(&app, "driver", &format!("fanout:{n}"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines[0].starts_with("2 Ok service:"), "{out}");
        assert!(lines[1].starts_with("3 Ok worker:"), "{out}");
        assert!(lines[2].starts_with(&format!("4 {status}")), "{out}");
    }
}

#[test]
fn writing_a_read_only_window_fails_the_call_and_changes_nothing() {
    let app = app();
    let region = app.region("e2e.shm").unwrap();
    let blob = Blob {
        marker: 1,
        data: vec![],
    }
    .to_bytes()
    .unwrap();
    region.write(0, &blob).unwrap();
    let shared = e2e::shared::client(&app, "service").unwrap();
    let slice = region.slice(0, blob.len() as u32).unwrap();
    match shared.scribble(slice) {
        Err(Error::ReadOnlyViolation { .. }) => {}
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("the write into a read-only window succeeded"),
    }
    assert_eq!(region.to_vec(slice).unwrap(), blob);
}

#[test]
fn singleton_state_persists_across_importers() {
    let app = app();
    assert_eq!(run(&app, "driver", "add:5"), "total=5");
    assert_eq!(run(&app, "driver2", "add:7"), "total=12");
    // The host reaches the same instance.
    let counter = e2e::counter::client(&app, "service").unwrap();
    assert_eq!(
        counter
            .add(&Num { value: 1 })
            .unwrap()
            .decode()
            .unwrap()
            .value,
        13
    );
    // A function without a result: an empty reply.
    assert!(counter.reset().unwrap().bytes().is_empty());
    assert_eq!(run(&app, "driver2", "add:2"), "total=2");
}

#[test]
fn pool_serves_concurrent_host_callers_with_two_instances() {
    let app = app();
    let pooled = e2e::pooled::client(&app, "service").unwrap();
    let callers = 4;
    let per_caller = 5;
    let barrier = Arc::new(Barrier::new(callers));
    let handles: Vec<_> = (0..callers)
        .map(|_| {
            let (pooled, barrier) = (pooled.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                (0..per_caller)
                    .map(|_| {
                        pooled
                            .hit(&Num { value: 1 })
                            .unwrap()
                            .decode()
                            .unwrap()
                            .value
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut counts: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    counts.sort_unstable();
    // Each instance counts its own calls from 1: the number of 1s is the
    // number of instances that served, and all calls were served.
    let instances = counts.iter().filter(|&&c| c == 1).count();
    assert!((1..=2).contains(&instances), "{counts:?}");
    assert_eq!(counts.len(), callers * per_caller);
    // At most two instances served all calls: one of them served at least
    // half.
    let most = *counts.last().unwrap();
    assert!(most as usize >= callers * per_caller / 2, "{counts:?}");
}

#[test]
fn region_bound_argument_is_read_in_place() {
    let app = app();
    let region = app.region("e2e.shm").unwrap();
    let blob = Blob {
        marker: 0xfeed,
        data: vec![1, 2, 3, 4],
    }
    .to_bytes()
    .unwrap();
    // Somewhere inside the region, not at its start.
    let offset = 4096;
    region.write(offset, &blob).unwrap();
    let slice = region.slice(offset, blob.len() as u32).unwrap();
    let shared = e2e::shared::client(&app, "service").unwrap();
    let seen = shared.inspect(slice).unwrap().decode().unwrap();
    assert!(seen.in_window, "the argument was not inside the window");
    assert_eq!(seen.offset, u64::from(offset));
    assert_eq!((seen.marker, seen.sum), (0xfeed, 10));
    // A host write after the first call is what the guest sees next: the
    // window is the region's pages, not a copy made at bind time.
    let changed = Blob {
        marker: 0xbeef,
        data: vec![9],
    }
    .to_bytes()
    .unwrap();
    region.write(offset, &changed).unwrap();
    let slice = region.slice(offset, changed.len() as u32).unwrap();
    let seen = shared.inspect(slice).unwrap().decode().unwrap();
    assert_eq!((seen.marker, seen.sum), (0xbeef, 9));
}

#[test]
fn dynamic_interface_reports_a_missing_function() {
    let app = app();
    assert_eq!(run(&app, "driver", "dyn-a:1"), "a=101");
    assert_eq!(run(&app, "driver", "dyn-b:1"), "b: UnknownFunction");
}

/// The hashes the generator computes (karmem_codegen::iface) are the ones
/// the host recomputes from the descriptors the guests wrote (loading would
/// fail otherwise); check them explicitly against karmem_host::descriptor.
#[test]
fn generated_hashes_match_the_host() {
    let source = std::fs::read_to_string(karmem_e2e::guests_dir().join("e2e.km")).unwrap();
    let schema = karmem_schema::compile("e2e.km", &source).unwrap().schema;
    let ifaces = karmem_codegen::iface::interfaces(&schema);
    let service = load("service", "e2e-service.wasm");
    let driver = load("driver", "e2e-driver.wasm");
    let described: Vec<_> = service
        .descriptor()
        .exports
        .iter()
        .chain(&driver.descriptor().exports)
        .chain(&driver.descriptor().imports)
        .collect();
    for d in described {
        let i = ifaces.iter().find(|i| i.name == d.name).unwrap();
        assert_eq!(d.signature(), i.signature, "{}", i.name);
        assert_eq!(d.signature_hash(), i.hash, "{}", i.name);
        assert_eq!(d.hash, i.hash, "{}", i.name);
    }
    // The abi.md §3.1 example through the host's own implementation.
    let game = "karmem game;
struct State table { Tick u32; }
struct Input table { Key u8; }
interface Updater {
    world: memory (import: read, export: write, 16);
    update: fn(state: State @ world, input: Input) (next: State @ world);
    reset: fn();
}
";
    let schema = karmem_schema::compile("game.km", game).unwrap().schema;
    let i = &karmem_codegen::iface::interfaces(&schema)[0];
    let host = karmem_host::InterfaceDesc {
        name: i.name.clone(),
        hash: 0,
        dynamic: false,
        pattern: karmem_host::Pattern::Direct,
        pool_size: 0,
        memories: vec![karmem_host::MemoryDesc {
            name: "game.world".into(),
            importer: karmem_host::Access::Read,
            exporter: karmem_host::Access::ReadWrite,
            max_pages: 16,
        }],
        functions: vec![
            karmem_host::FunctionDesc {
                name: "update".into(),
                params: vec![
                    karmem_host::ParamDesc {
                        name: "state".into(),
                        ty: "game.State".into(),
                        memory: Some("game.world".into()),
                    },
                    karmem_host::ParamDesc {
                        name: "input".into(),
                        ty: "game.Input".into(),
                        memory: None,
                    },
                ],
                result: Some(karmem_host::ParamDesc {
                    name: "next".into(),
                    ty: "game.State".into(),
                    memory: Some("game.world".into()),
                }),
            },
            karmem_host::FunctionDesc {
                name: "reset".into(),
                params: vec![],
                result: None,
            },
        ],
    };
    assert_eq!(host.signature_hash(), 0xf1c9_c72e_7ed9_6715);
    assert_eq!(i.hash, host.signature_hash());
}

/// Argument memory is freed after each dispatch (abi.md §5.2) and the
/// allocator reuses it: 100 calls with a 1 MiB argument would need 100 MiB
/// if it leaked, past the instance's 64 MiB default cap (the call would fail
/// with MEMORY_LIMIT or a trap).
#[test]
fn argument_memory_is_reused_across_calls() {
    let app = app();
    let echo = e2e::echo::client(&app, "service").unwrap();
    let big = Text {
        value: "x".repeat(1 << 20),
    };
    for i in 0..100 {
        let reply = echo.echo(&big).unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(reply.view().unwrap().value().len(), 1 << 20);
    }
    assert_eq!(app.stats().instances_discarded, 0);
}

/// Guest→guest with regions: the importer writes a message into its window
/// and passes it by offset; the exporter reads it in place; a region-bound
/// result comes back as a pointer into the caller's window.
#[test]
fn guest_to_guest_region_arguments_and_results_are_not_copied() {
    let app = app();
    assert_eq!(
        run(&app, "driver", "shared:42"),
        "offset=256 in_window=true marker=42 sum=6"
    );
    assert_eq!(
        run(&app, "driver", "stamp:9"),
        "in_region=true at=512 marker=9 data=[7, 7, 7]"
    );
    // From the host: the result is where the exporter put it in the region.
    let shared = e2e::shared::client(&app, "service").unwrap();
    let reply = shared.stamp(&Num { value: 5 }).unwrap();
    let at = reply.region.expect("a region-bound result");
    assert_eq!(at.offset, 512);
    assert_eq!(reply.decode().unwrap().marker, 5);
}
