use std::path::Path;
use std::sync::Arc;

use karmem_host::{Access, MemoryLog, Pattern};
use karmem_testkit::wat_guest::{bot_api, iface, simple, Guest};

use super::*;

fn parse(text: &str) -> Result<Manifest, ManifestError> {
    Manifest::parse(Path::new("dir/app.toml"), text.to_string())
}

#[test]
fn grants_limits_and_budgets_are_read() {
    let m = parse(
        r#"
[budget]
instances = 10
host_bytes_mib = 2
fuel = 5000

[[module]]
name = "world"
path = "world.wasm"
timeout_ms = 250
max_instances = 3
grant = { "arena.board" = "write", "arena.log" = "none" }

[[module]]
name = "bot"
path = "bot.wasm"
"#,
    )
    .unwrap();
    let world = Manifest::module_options(&m.file.modules[0]);
    assert_eq!(world.timeout, Duration::from_millis(250));
    assert_eq!(world.max_instances, 3);
    assert_eq!(world.granted("arena.board"), Access::ReadWrite);
    assert_eq!(world.granted("arena.log"), Access::None);
    // Not listed: no access at all (docs/security.md §1).
    assert_eq!(world.granted("arena.other"), Access::None);
    let bot = Manifest::module_options(&m.file.modules[1]);
    assert_eq!(bot, ModuleOptions::default());
    let budget = m.call_budget();
    assert_eq!(
        (
            budget.instances,
            budget.calls,
            budget.host_bytes,
            budget.fuel
        ),
        (10, CallBudget::default().calls, 2 << 20, Some(5000))
    );
    assert_eq!(m.relative("world.wasm"), Path::new("dir/world.wasm"));
}

#[test]
fn a_bad_grant_is_reported_where_it_is_written() {
    let e =
        parse("[[module]]\nname = \"w\"\npath = \"w.wasm\"\ngrant = { \"a.b\" = \"readwrite\" }\n")
            .err()
            .unwrap();
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert_eq!(e.location.as_deref(), Some("dir/app.toml:4:19"));
    assert!(e.message.contains("unknown variant"), "{}", e.message);
    let e = parse("[[module]]\nname = \"w\"\npath = \"w.wasm\"\ngrants = {}\n")
        .err()
        .unwrap();
    assert_eq!(e.location.as_deref(), Some("dir/app.toml:4:1"));
    assert!(e.message.contains("unknown field"), "{}", e.message);
}

#[test]
fn grants_reach_the_application_and_unknown_regions_are_blamed() {
    let dir = tempfile::tempdir().unwrap();
    let world = Guest::new(
        vec![iface(
            "t.World",
            Pattern::Singleton,
            vec![],
            vec![simple("tick")],
        )],
        vec![bot_api()],
    )
    .func("t.World", "tick", "(i32.const 0)");
    // Declares both roles: asks for write access.
    let agent =
        Guest::new(vec![bot_api()], vec![bot_api()]).func("t.Bot", "think", "(i32.const 0)");
    std::fs::write(dir.path().join("world.wat"), world.wat()).unwrap();
    std::fs::write(dir.path().join("agent.wat"), agent.wat()).unwrap();
    let text = |grant: &str| {
        format!(
            "cache = false\n\n[[module]]\nname = \"world\"\npath = \"world.wat\"\ngrant = {{ \"t.board\" = \"write\" }}\n\n[[module]]\nname = \"agent\"\npath = \"agent.wat\"\ngrant = {{ {grant} }}\n"
        )
    };
    let path = dir.path().join("app.toml");
    let m = Manifest::parse(&path, text("\"t.board\" = \"read\"")).unwrap();
    let runtime = m.runtime().unwrap();
    let app = m
        .build(&runtime, Arc::new(MemoryLog::new()), |_| {})
        .unwrap();
    assert_eq!(app.access("world", "t.board").unwrap(), Access::ReadWrite);
    assert_eq!(app.access("agent", "t.board").unwrap(), Access::Read);
    assert_eq!(
        app.requested_access("agent", "t.board").unwrap(),
        Access::ReadWrite
    );

    let m = Manifest::parse(&path, text("\"t.bored\" = \"read\"")).unwrap();
    let e = m
        .build(&runtime, Arc::new(MemoryLog::new()), |_| {})
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert!(
        e.location.as_deref().unwrap().ends_with("app.toml:11:11"),
        "{e}"
    );
    assert!(e.message.contains("t.bored"), "{e}");

    // The same application on a runtime the manifest sets up with explicit
    // bounds checks and a pool: the grants hold the same way.
    let m = Manifest::parse(
        &path,
        format!(
            "{}\n[runtime]\nbounds_checks = \"explicit\"\ninstance_slots = 8\n",
            text("\"t.board\" = \"read\"")
        ),
    )
    .unwrap();
    let runtime = m.runtime().unwrap();
    let app = m
        .build(&runtime, Arc::new(MemoryLog::new()), |_| {})
        .unwrap();
    assert_eq!(app.access("world", "t.board").unwrap(), Access::ReadWrite);
    assert_eq!(app.access("agent", "t.board").unwrap(), Access::Read);
}

#[test]
fn a_missing_module_file_is_an_io_error_at_its_path() {
    let m = parse("cache = false\n[[module]]\nname = \"w\"\npath = \"nowhere.wasm\"\n").unwrap();
    let runtime = m.runtime().unwrap();
    let e = m
        .build(&runtime, Arc::new(MemoryLog::new()), |_| {})
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(e.location.as_deref(), Some("dir/app.toml:4:8"));
}

/// Files the manifest names are read bounded: a module path or a region's
/// contents naming a device (`/dev/zero`) is refused after a bounded read,
/// not read until memory runs out; contents larger than the region are an
/// error at the entry.
#[test]
fn files_the_manifest_names_are_read_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let reader = Guest::new(vec![bot_api()], vec![]).func("t.Bot", "think", "(i32.const 0)");
    std::fs::write(dir.path().join("bot.wat"), reader.wat()).unwrap();
    std::fs::write(dir.path().join("big.bin"), vec![7u8; (1 << 16) + 1]).unwrap();
    let path = dir.path().join("app.toml");
    let build = |text: &str| {
        let m = Manifest::parse(&path, text.to_string()).unwrap();
        let runtime = m.runtime().unwrap();
        m.build(&runtime, Arc::new(MemoryLog::new()), |_| {})
    };
    let module = "cache = false\n[[module]]\nname = \"bot\"\npath = \"bot.wat\"\ngrant = { \"t.board\" = \"read\" }\n";
    // One page: 65 536 bytes.
    for (contents, fails) in [("/dev/zero", true), ("big.bin", true), ("bot.wat", false)] {
        let r = build(&format!(
            "{module}\n[[region]]\nname = \"t.board\"\ncontents = \"{contents}\"\n"
        ));
        match r {
            Err(e) if fails => {
                assert_eq!(e.kind, ErrorKind::Io, "{contents}: {e}");
                assert!(e.message.contains("larger than the region"), "{e}");
            }
            Ok(_) if !fails => {}
            other => panic!("{contents}: {:?}", other.err().map(|e| e.to_string())),
        }
    }
    // A region no module declares.
    let e = build(&format!(
        "{module}\n[[region]]\nname = \"t.none\"\ncontents = \"big.bin\"\n"
    ))
    .err()
    .unwrap();
    assert!(e.message.contains("t.none"), "{e}");
    let e = build("cache = false\n[[module]]\nname = \"z\"\npath = \"/dev/zero\"\n")
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::Io, "{e}");
    assert!(e.message.contains("MiB"), "{e}");
}

#[test]
fn the_runtime_table_chooses_bounds_checks_and_a_pool() {
    const MODULE: &str = "[[module]]\nname = \"w\"\npath = \"w.wasm\"\nmemory_limit_mib = 16\n";
    // Absent: guard pages, instances on demand.
    let c = parse(MODULE).unwrap().runtime_config().unwrap();
    assert_eq!(c.bounds_checks, BoundsChecks::GuardPages);
    assert_eq!(c.instances, Instances::OnDemand);

    let c = parse(&format!(
        "[runtime]\nbounds_checks = \"explicit\"\ninstance_slots = 100\nkeep_resident_kib = 64\n{MODULE}"
    ))
    .unwrap()
    .runtime_config()
    .unwrap();
    // No reservation given: the largest module memory limit.
    assert_eq!(
        c.bounds_checks,
        BoundsChecks::Explicit {
            reservation: 16 << 20
        }
    );
    assert_eq!(
        c.instances,
        Instances::Pooled {
            slots: 100,
            keep_resident: 64 << 10
        }
    );
    let c = parse(&format!(
        "[runtime]\nbounds_checks = \"explicit\"\nreservation_mib = 32\ninstance_slots = 2\n{MODULE}"
    ))
    .unwrap()
    .runtime_config()
    .unwrap();
    assert_eq!(
        c.bounds_checks,
        BoundsChecks::Explicit {
            reservation: 32 << 20
        }
    );
    assert_eq!(c.instances, Instances::pooled(2));
}

#[test]
fn runtime_keys_that_cannot_hold_are_reported_where_they_are_written() {
    const MODULE: &str = "[[module]]\nname = \"w\"\npath = \"w.wasm\"\nmemory_limit_mib = 16\n";
    let cases = [
        (
            "[runtime]\nreservation_mib = 32\n",
            "dir/app.toml:2:19",
            "only with bounds_checks = \"explicit\"",
        ),
        (
            "[runtime]\nbounds_checks = \"explicit\"\nreservation_mib = 8\n",
            "dir/app.toml:3:19",
            "below module `w`'s memory limit of 16 MiB",
        ),
        (
            "[runtime]\nbounds_checks = \"explicit\"\nreservation_mib = 0\n",
            "dir/app.toml:3:19",
            "reservation_mib = 0: it must be from 1 to 4096",
        ),
        (
            "[runtime]\nbounds_checks = \"explicit\"\nreservation_mib = 8192\n",
            "dir/app.toml:3:19",
            "reservation_mib = 8192: it must be from 1 to 4096",
        ),
        (
            "[runtime]\nkeep_resident_kib = 4\n",
            "dir/app.toml:2:21",
            "set instance_slots too",
        ),
        (
            "[runtime]\ninstance_slots = 0\n",
            "dir/app.toml:2:18",
            "at least one slot",
        ),
        (
            "[runtime]\ninstance_slots = 1\nkeep_resident_kib = 4194304\n",
            "dir/app.toml:3:21",
            "more than 4 GiB",
        ),
    ];
    for (runtime, at, says) in cases {
        let e = parse(&format!("{runtime}{MODULE}"))
            .unwrap()
            .runtime_config()
            .err()
            .unwrap_or_else(|| panic!("accepted: {runtime}"));
        assert_eq!(e.kind, ErrorKind::Invalid, "{runtime}");
        assert_eq!(e.location.as_deref(), Some(at), "{runtime}: {}", e.message);
        assert!(e.message.contains(says), "{runtime}: {}", e.message);
    }
    // No reservation given and a module's limit above 4 GiB: at the
    // bounds_checks key, naming the size.
    let e = parse(
        "[runtime]\nbounds_checks = \"explicit\"\n[[module]]\nname = \"w\"\npath = \"w.wasm\"\nmemory_limit_mib = 5000\n",
    )
    .unwrap()
    .runtime_config()
    .err()
    .unwrap();
    assert_eq!(
        e.location.as_deref(),
        Some("dir/app.toml:2:17"),
        "{}",
        e.message
    );
    assert!(e.message.contains("5000 MiB here"), "{}", e.message);
    // Spelling: the value and the key are checked by the parser.
    let e = parse("[runtime]\nbounds_checks = \"guards\"\n")
        .err()
        .unwrap();
    assert_eq!(e.location.as_deref(), Some("dir/app.toml:2:17"));
    assert!(e.message.contains("unknown variant"), "{}", e.message);
    let e = parse("[runtime]\nslots = 3\n").err().unwrap();
    assert_eq!(e.location.as_deref(), Some("dir/app.toml:2:1"));
}
