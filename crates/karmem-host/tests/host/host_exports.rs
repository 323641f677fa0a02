//! The host as an exporter (docs/abi.md §5.4): guests call host functions
//! with `karmem.call`, unchanged.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use karmem_host::{
    Access, Arg, Error, HostCall, HostError, InterfaceDesc, MemoryLog, ModuleOptions, Output,
    Pattern, Status, HOST,
};

use crate::common::*;

/// `t.World { query(q: t.Msg) -> r: t.Msg; poke() }`.
fn world(pattern: Pattern) -> InterfaceDesc {
    iface(
        "t.World",
        pattern,
        vec![],
        vec![
            func(
                "query",
                vec![param("q", "t.Msg", None)],
                Some(param("r", "t.Msg", None)),
            ),
            func("poke", vec![], None),
        ],
    )
    .with_signature_hash()
}

/// A guest exporting `t.Bot.go(x) -> r` that calls its import function
/// `fid` with `count` arguments (its own argument 0 forwarded) and replies
/// `[i32 return of call][4 out entries of 16 bytes][taken bytes of entry 0]`.
fn asker(import: InterfaceDesc, fid: u32, count: u32) -> Guest {
    let go = func(
        "go",
        vec![param("x", "t.Msg", None)],
        Some(param("r", "t.Msg", None)),
    );
    Guest::new(
        vec![iface("t.Bot", Pattern::Direct, vec![], vec![go])],
        vec![import],
    )
    .func(
        "t.Bot",
        "go",
        &format!(
            "(local $r i32) (local $len i32)
             (i32.store (i32.const 512) (call $arg_ptr (local.get $args) (i32.const 0)))
             (i32.store (i32.const 516) (call $arg_len (local.get $args) (i32.const 0)))
             (local.set $r (call $call (i32.const {fid}) (i32.const 512) (i32.const {count}) (i32.const 1024) (i32.const 4)))
             (i32.store (i32.const 16384) (local.get $r))
             (if (i32.lt_s (local.get $r) (i32.const 1)) (then (return (call $reply (i32.const 16384) (i32.const 68)))))
             (memory.copy (i32.const 16388) (i32.const 1024) (i32.const 64))
             (local.set $len (i32.load (i32.const 1032)))
             (if (i32.load (i32.const 1036)) (then (local.set $len (i32.const 0))))
             (if (i32.ne (call $take (i32.const 0) (i32.const 16452) (local.get $len)) (i32.const 0))
               (then (if (local.get $len) (then (unreachable)))))
             (call $reply (i32.const 16384) (i32.add (i32.const 68) (local.get $len)))"
        ),
    )
}

/// What [`asker`] replied.
#[derive(Debug)]
struct Reply {
    ret: i32,
    /// `{status, callee, len, ptr}` of up to 4 callees.
    entries: Vec<[u32; 4]>,
    taken: Vec<u8>,
}

impl Reply {
    fn status(&self) -> u32 {
        self.entries[0][0]
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.taken).into_owned()
    }
}

fn ask(app: &karmem_host::App, arg: &[u8]) -> Reply {
    let out = app.call("bot", "t.Bot", "go", &[Arg::Bytes(arg)]).unwrap();
    let Output::Bytes(b) = out else {
        panic!("{out:?}")
    };
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let ret = word(0) as i32;
    let n = ret.clamp(0, 4) as usize;
    Reply {
        ret,
        entries: (0..n)
            .map(|k| std::array::from_fn(|i| word(4 + 16 * k + 4 * i)))
            .collect(),
        taken: b[68..].to_vec(),
    }
}

fn upper(call: &HostCall<'_>, args: &[Arg<'_>]) -> Result<Output, HostError> {
    match (call.function(), args) {
        ("query", [Arg::Bytes(q)]) => Ok(Output::Bytes(q.to_ascii_uppercase())),
        ("poke", []) => Ok(Output::Empty),
        (f, a) => Err(HostError::new(format!("unexpected {f} with {a:?}"))),
    }
}

#[test]
fn a_guest_calls_a_host_function_and_gets_its_result() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    let s = seen.clone();
    b.host_export(
        world(Pattern::Direct),
        move |call: &HostCall<'_>, args: &[Arg<'_>]| {
            s.lock().unwrap().push(format!(
                "{} {}.{} #{}",
                call.caller(),
                call.interface(),
                call.function(),
                call.function_index()
            ));
            upper(call, args)
        },
    );
    let app = b.build().unwrap();
    let r = ask(&app, b"hello");
    assert_eq!((r.ret, r.entries[0]), (1, [0, 1, 5, 0]), "{r:?}");
    assert_eq!(r.taken, b"HELLO");
    assert_eq!(*seen.lock().unwrap(), ["bot t.World.query #0"]);
    // Many calls: the same implementation serves them all.
    for _ in 0..3 {
        assert_eq!(ask(&app, b"again").taken, b"AGAIN");
    }
}

#[test]
fn a_host_function_without_parameters_or_result() {
    let pokes = Arc::new(AtomicUsize::new(0));
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 1, 0).load("bot"));
    let p = pokes.clone();
    b.host_export(
        world(Pattern::Direct),
        move |c: &HostCall<'_>, a: &[Arg<'_>]| {
            p.fetch_add(1, Ordering::SeqCst);
            upper(c, a)
        },
    );
    let app = b.build().unwrap();
    let r = ask(&app, b"");
    assert_eq!((r.ret, r.entries[0]), (1, [0, 1, 0, 0]), "{r:?}");
    assert_eq!(pokes.load(Ordering::SeqCst), 1);
}

#[test]
fn host_errors_reach_the_guest_as_statuses_with_messages() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.host_export(
        world(Pattern::Direct),
        |_: &HostCall<'_>, args: &[Arg<'_>]| match args {
            [Arg::Bytes(q)] if *q == b"bad" => Err(HostError::bad_argument("not a query")),
            [Arg::Bytes(q)] if *q == b"none" => Ok(Output::Empty),
            _ => Err("no such unit".into()),
        },
    );
    let app = b.build().unwrap();
    let r = ask(&app, b"unit 7");
    assert_eq!(r.status(), Status::ApplicationError as u32);
    assert!(r.text().contains("no such unit"), "{}", r.text());
    assert!(
        r.text().contains("module `host`, t.World.query"),
        "{}",
        r.text()
    );
    let r = ask(&app, b"bad");
    assert_eq!(r.status(), Status::BadArgument as u32);
    assert!(r.text().contains("not a query"), "{}", r.text());
    // An empty result for a function that declares one: allowed, as for
    // guests (an absent message).
    let r = ask(&app, b"none");
    assert_eq!(r.entries[0], [0, 1, 0, 0]);
}

#[test]
fn a_host_panic_fails_that_call_only() {
    let panicked = Arc::new(AtomicBool::new(false));
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    let p = panicked.clone();
    b.host_export(
        world(Pattern::Direct),
        move |call: &HostCall<'_>, args: &[Arg<'_>]| {
            if !p.swap(true, Ordering::SeqCst) {
                panic!("host bug on the first call");
            }
            upper(call, args)
        },
    );
    let app = b.build().unwrap();
    let created = app.stats().instances_created;
    let r = ask(&app, b"x");
    assert_eq!(r.status(), Status::Trap as u32);
    assert!(
        r.text().contains("panicked: host bug on the first call"),
        "{}",
        r.text()
    );
    assert_eq!(ask(&app, b"y").taken, b"Y");
    // The caller was not discarded: it handled the failed call itself.
    assert_eq!(app.stats().instances_created, created);
}

#[test]
fn a_wrong_result_shape_is_reported_not_passed_on() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 1, 0).load("bot"));
    // `poke` declares no result.
    b.host_export(
        world(Pattern::Direct),
        |_: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> {
            Ok(Output::Bytes(b"surprise".to_vec()))
        },
    );
    let app = b.build().unwrap();
    let r = ask(&app, b"");
    assert_eq!(r.status(), Status::Trap as u32);
    assert!(r.text().contains("declares none"), "{}", r.text());
}

#[test]
fn host_descriptors_are_checked_like_guest_exporters() {
    let log = Arc::new(MemoryLog::new());
    let ok = |_: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> { Ok(Output::Empty) };

    // Another parameter type: a different signature hash.
    let mut other = world(Pattern::Direct);
    other.functions[0].params[0].ty = "t.Other".into();
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.host_export(other.clone().with_signature_hash(), ok);
    match b.build() {
        Err(Error::IncompatibleInterface {
            interface,
            importer,
            exporter,
            reason,
        }) => {
            assert_eq!(
                (&*interface, &*importer, &*exporter),
                ("t.World", "bot", HOST)
            );
            assert!(reason.contains("signature hashes differ"), "{reason}");
        }
        other => panic!("{:?}", other.err()),
    }

    // A hash that is not the signature's.
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.host_export(other, ok);
    assert!(
        matches!(b.build(), Err(Error::BadDescriptor { module, message })
            if module == HOST && message.contains("hash")),
    );

    // Another pattern.
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.host_export(world(Pattern::Singleton), ok);
    assert!(matches!(
        b.build(),
        Err(Error::IncompatibleInterface { exporter, .. }) if exporter == HOST
    ));

    // The same interface twice.
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.host_export(world(Pattern::Direct), ok);
    b.host_export(world(Pattern::Direct), ok);
    assert!(matches!(b.build(), Err(Error::BadDescriptor { module, .. }) if module == HOST));

    // A module named like the host.
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load(HOST));
    b.host_export(world(Pattern::Direct), ok);
    assert!(matches!(b.build(), Err(Error::DuplicateModule(_))));
}

#[test]
fn an_unbound_import_still_fails_the_build() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    assert!(matches!(
        b.build(),
        Err(Error::Binding { module, message, .. })
            if module == "bot" && message.contains("unsatisfied import")
    ));
    // Binding to the host when it exports nothing names an unknown module.
    b.bind("bot", "t.World", HOST);
    assert_eq!(
        b.build().err(),
        Some(Error::UnknownModule(HOST.to_string()))
    );
}

/// A guest exporting `t.World` whose `query` replies `text`.
fn guest_world(text: &str, pattern: Pattern) -> Guest {
    Guest::new(vec![world(pattern)], vec![])
        .func(
            "t.World",
            "query",
            &format!("(call $reply (i32.const 2048) (i32.const {}))", text.len()),
        )
        .func("t.World", "poke", "(i32.const 0)")
        .extra(&format!("(data (i32.const 2048) \"{text}\")"))
}

#[test]
fn the_host_is_chosen_by_binding_like_a_module() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.module(guest_world("guest", Pattern::Direct).load("w"));
    b.host_export(world(Pattern::Direct), upper);
    match b.build() {
        Err(Error::Binding { message, .. }) => {
            assert!(
                message.contains("ambiguous: exported by w, host"),
                "{message}"
            )
        }
        other => panic!("{:?}", other.err()),
    }
    b.bind_all("t.World", "w");
    assert_eq!(ask(&b.build().unwrap(), b"q").taken, b"guest");
    b.bind("bot", "t.World", HOST);
    assert_eq!(ask(&b.build().unwrap(), b"q").taken, b"Q");
}

#[test]
fn fan_out_includes_the_host_after_the_modules() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(guest_world("one", Pattern::FanOut).load("w1"));
    b.module(asker(world(Pattern::FanOut), 0, 1).load("bot"));
    b.module(guest_world("two", Pattern::FanOut).load("w2"));
    b.host_export(world(Pattern::FanOut), upper);
    let app = b.build().unwrap();
    let r = ask(&app, b"abc");
    assert_eq!(r.ret, 3, "{r:?}");
    assert_eq!(r.entries[0], [0, 0, 3, 0]);
    assert_eq!(r.entries[1], [0, 2, 3, 0]);
    assert_eq!(
        r.entries[2],
        [0, 3, 3, 0],
        "the host is callee 3: after the modules"
    );
    // The host does not call itself in a fan-out from the host.
    assert_eq!(
        app.call_all("t.World", "query", &[Arg::Bytes(b"x")])
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_host_function_calling_back_is_refused_for_its_caller_not_deadlocked() {
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module(asker(world(Pattern::Direct), 0, 1).load("bot"));
    b.module(replier("t.Other", "other").load("other"));
    b.host_export(
        world(Pattern::Direct),
        |call: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> {
            let app = call.app();
            // Into the calling instance: it is on this call stack.
            let back = app.call("bot", "t.Bot", "go", &[Arg::Bytes(b"loop")]);
            let Err(e) = back else {
                return Err("the call back succeeded".into());
            };
            // Into another module: fine.
            let other = app
                .call("other", "t.Other", "ok", &[])
                .map_err(|e| e.to_string())?;
            let Output::Bytes(other) = other else {
                return Err("no bytes".into());
            };
            Ok(Output::Bytes(
                format!("{} | {}", e, String::from_utf8_lossy(&other)).into_bytes(),
            ))
        },
    );
    let app = b.build().unwrap();
    let r = ask(&app, b"q");
    assert_eq!(r.status(), 0, "{}", r.text());
    assert!(r.text().contains("re-entrant call"), "{}", r.text());
    assert!(r.text().ends_with("| other"), "{}", r.text());
}

#[test]
fn dynamic_host_exports_match_function_by_function() {
    let log = Arc::new(MemoryLog::new());
    let mut imp = world(Pattern::Direct);
    imp.dynamic = true;
    let imp = imp.with_signature_hash();
    // The host has `poke` only (and a function the guest does not know).
    let mut exp = world(Pattern::Direct);
    exp.dynamic = true;
    exp.functions.remove(0);
    exp.functions.insert(0, func("extra", vec![], None));
    let exp = exp.with_signature_hash();
    let mut b = builder(&log);
    b.module(asker(imp.clone(), 0, 1).load("bot"));
    b.host_export(
        exp,
        |c: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> {
            Ok(Output::Bytes(
                format!("{}#{}", c.function(), c.function_index()).into_bytes(),
            ))
        },
    );
    let app = b.build().unwrap();
    // `query` is missing on the host side.
    assert_eq!(ask(&app, b"q").status(), Status::UnknownFunction as u32);

    let mut b = builder(&log);
    b.module(asker(imp, 1, 0).load("bot"));
    b.host_export(
        {
            let mut e = world(Pattern::Direct);
            e.dynamic = true;
            e.functions.swap(0, 1);
            e.with_signature_hash()
        },
        |c: &HostCall<'_>, _: &[Arg<'_>]| -> Result<Output, HostError> {
            assert_eq!((c.function(), c.function_index()), ("poke", 0));
            Ok(Output::Empty)
        },
    );
    let r = ask(&b.build().unwrap(), b"");
    assert_eq!(r.entries[0], [0, 1, 0, 0], "{}", r.text());
}

#[test]
fn region_bound_parameters_and_results_reach_the_host_without_copies() {
    let api = board_api(true);
    // Writes "news" at offset 100 of its window and passes it by pointer;
    // replies with the entry (its `ptr` points into the window).
    let writer = news_poster(
        api.clone(),
        "(i32.store (i32.const 1040) (i32.sub (i32.load (i32.const 1036)) (local.get $w)))
             (call $reply (i32.const 1024) (i32.const 20))",
    );
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        writer.load("writer"),
        ModuleOptions::default().grant("t.board", Access::ReadWrite),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    b.host_export(
        api,
        move |c: &HostCall<'_>, args: &[Arg<'_>]| -> Result<Output, HostError> {
            let [Arg::Region(at)] = args else {
                return Err(format!("{args:?}").into());
            };
            s.lock()
                .unwrap()
                .push(c.region_bytes(*at).map_err(|e| e.to_string())?);
            // Answer with the 2 bytes after it, in the region.
            let region = c.app().region("t.board").map_err(|e| e.to_string())?;
            region.write(104, b"!!").map_err(|e| e.to_string())?;
            Ok(Output::Region(
                region.slice(104, 2).map_err(|e| e.to_string())?,
            ))
        },
    );
    let app = b.build().unwrap();
    let Output::Bytes(out) = app.call("writer", "t.Write", "post", &[]).unwrap() else {
        panic!()
    };
    let word = |at: usize| u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
    assert_eq!(*seen.lock().unwrap(), [b"news".to_vec()]);
    assert_eq!(
        (word(0), word(4), word(8)),
        (0, 1, 2),
        "OK from callee 1 (the host), 2 bytes"
    );
    assert_eq!(
        word(16),
        104,
        "the result points into the caller's window at offset 104"
    );
}

#[test]
fn a_copied_argument_inside_a_window_reaches_the_host_as_a_copy() {
    // The interface declares a region, but `peek`'s parameter is copied:
    // the importer passes a pointer into its window anyway, so the host
    // must copy (another instance may be writing the region meanwhile).
    let api = board_api(false);
    let writer = news_poster(
        api.clone(),
        "(if (i32.load (i32.const 1024)) (then (unreachable)))
         (drop (call $take (i32.const 0) (i32.const 1300) (i32.load (i32.const 1032))))
         (call $reply (i32.const 1300) (i32.load (i32.const 1032)))",
    );
    let log = Arc::new(MemoryLog::new());
    let mut b = builder(&log);
    b.module_with(
        writer.load("writer"),
        ModuleOptions::default().grant("t.board", Access::ReadWrite),
    );
    b.host_export(
        api,
        |_: &HostCall<'_>, args: &[Arg<'_>]| -> Result<Output, HostError> {
            let [Arg::Bytes(at)] = args else {
                return Err(format!("{args:?}").into());
            };
            Ok(Output::Bytes([b"got ", *at].concat()))
        },
    );
    let app = b.build().unwrap();
    assert_eq!(
        app.call("writer", "t.Write", "post", &[]).unwrap(),
        Output::Bytes(b"got news".to_vec())
    );
}
