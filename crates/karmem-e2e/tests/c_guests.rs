//! C guest modules (guests/c/, built by scripts/build-guests-c.sh into
//! guests/out/) on the host: every function of the C echo (values,
//! in-place arguments, region results, read-only windows, errors, bad
//! input), C and Go importers calling each other's exporters (direct and
//! fan-out, in both directions), a trapping fan-out member, the C arena bot
//! and the module's descriptor.

mod common;

use common::{module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, ModuleOptions, Output, Status};
use serde_json::{json, Value};

/// Calls `function` of the C echo or the arena bot with one copied message
/// and decodes its result.
fn call_json(c: &Codec, app: &App, module: &str, function: &str, arg: Value) -> Value {
    let (iface, arg_type, result_type) = if function == "join" {
        ("arena.Bot", "Rules", "Hello")
    } else {
        ("e2e.Echo", "Msg", "Msg")
    };
    let msg = c.encode(arg_type, arg);
    let out = app
        .call(module, iface, function, &[Arg::Bytes(&msg)])
        .unwrap_or_else(|e| panic!("{module} {function}: {e}"));
    c.decode(result_type, &out.to_vec(app).unwrap())
}

fn e2e() -> Codec {
    Codec::load("guests/go/e2e-go.km")
}

/// An application of `modules` (each granted what its roles ask for),
/// with `e2e.Echo` of every importer bound to `echo` when given.
fn application(modules: &[&str], echo: Option<&str>) -> App {
    let mut b = AppBuilder::new(runtime());
    for name in modules {
        let m = module(name);
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    if let Some(exporter) = echo {
        b.bind_all("e2e.Echo", exporter);
    }
    b.build().unwrap()
}

#[test]
fn c_export_called_from_host() {
    let c = e2e();
    let app = application(&["e2e-c-echo"], None);
    let got = call_json(
        &c,
        &app,
        "e2e-c-echo",
        "echo",
        json!({"Text": "héllo", "Number": 41}),
    );
    assert_eq!(got["Text"], "héllo");
    assert_eq!(got["Number"], 42);
    // An absent (empty) argument reads as the zero value.
    let out = app
        .call("e2e-c-echo", "e2e.Echo", "echo", &[Arg::Bytes(&[])])
        .unwrap();
    let got = c.decode("Msg", &out.to_vec(&app).unwrap());
    assert_eq!(
        (got["Text"].as_str(), got["Number"].as_u64()),
        (Some(""), Some(1))
    );
    let out = app.call("e2e-c-echo", "e2e.Echo", "nop", &[]).unwrap();
    assert_eq!(out, Output::Empty);
}

#[test]
fn c_reads_a_region_argument_in_place() {
    let c = e2e();
    let app = application(&["e2e-c-echo"], None);
    let msg = c.encode("Msg", json!({"Text": "in place", "Number": 7}));
    let region = app.region("e2e.shared").unwrap();
    for at in [0u32, 8192, 40000] {
        region.write(at, &msg).unwrap();
        let slice = region.slice(at, msg.len() as u32).unwrap();
        let out = app
            .call("e2e-c-echo", "e2e.Echo", "peek", &[Arg::Region(slice)])
            .unwrap();
        let got = c.decode("Msg", &out.to_vec(&app).unwrap());
        assert_eq!(got["Text"], "in place");
        // Found inside its window at the offset the host wrote it to.
        assert_eq!(got["Number"], at);
    }
}

#[test]
fn c_region_result_and_read_only_window() {
    let c = e2e();
    let app = application(&["e2e-c-echo"], None);
    common::stamp_and_scribble(&c, &app, "e2e-c-echo");
    // The result was the C echo's window of `e2e.out`: stamp wrote there.
    let out = app.region("e2e.out").unwrap();
    let stamped = c.encode("Msg", json!({"Text": "stamped", "Number": 101}));
    assert_eq!(
        out.to_vec(out.slice(0, stamped.len() as u32).unwrap())
            .unwrap(),
        stamped
    );
    assert_eq!(app.stats().instances_discarded, 1);
    // A fresh instance serves the next call.
    let got = call_json(&c, &app, "e2e-c-echo", "echo", json!({"Number": 5}));
    assert_eq!(got["Number"], 6);
}

#[test]
fn c_bad_arguments_and_application_errors() {
    let c = e2e();
    let app = application(&["e2e-c-echo"], None);
    // Not a message; a message whose text runs past its end; a valid
    // message at a misaligned position of the shared region.
    let mut truncated = c.encode("Msg", json!({"Text": "too long to fit"}));
    let keep = truncated.len() - 16;
    truncated.truncate(keep);
    let len = keep as u32;
    truncated[4..8].copy_from_slice(&len.to_le_bytes());
    for (what, junk) in [("junk", vec![0xffu8; 24]), ("truncated", truncated)] {
        let err = app
            .call("e2e-c-echo", "e2e.Echo", "echo", &[Arg::Bytes(&junk)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{what}: {err}");
        assert!(
            err.to_string()
                .contains("e2e.Echo.echo: argument m: karmem: "),
            "{what}: {err}"
        );
    }
    let msg = c.encode("Msg", json!({"Text": "odd"}));
    let region = app.region("e2e.shared").unwrap();
    region.write(3, &msg).unwrap();
    let slice = region.slice(3, msg.len() as u32).unwrap();
    let err = app
        .call("e2e-c-echo", "e2e.Echo", "peek", &[Arg::Region(slice)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
    assert!(err.to_string().contains("argument m"), "{err}");

    let msg = c.encode("Msg", json!({"Text": "on purpose"}));
    let err = app
        .call("e2e-c-echo", "e2e.Echo", "fail", &[Arg::Bytes(&msg)])
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::ApplicationError), "{err}");
    assert!(err.to_string().contains("fail: on purpose"), "{err}");

    // None of these discards the instance; it still works.
    let got = call_json(
        &c,
        &app,
        "e2e-c-echo",
        "echo",
        json!({"Text": "on purpose"}),
    );
    assert_eq!(got["Number"], 1);
    assert_eq!(app.stats().instances_discarded, 0);
}

/// What both drivers answer for `{"Text": "hi", "Number": 41}`, given the
/// voters' answers in module order.
fn expected(votes: &str) -> String {
    format!("echo=hi/42 peek=hi@4096 votes={votes}")
}

fn drive(app: &App, driver: &str, text: &str) -> String {
    let c = e2e();
    let msg = c.encode("Msg", json!({"Text": text, "Number": 41}));
    let out = app
        .call(driver, "e2e.Driver", "run", &[Arg::Bytes(&msg)])
        .unwrap_or_else(|e| panic!("{driver} run: {e}"));
    c.decode("Msg", &out.to_vec(app).unwrap())["Text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn go_caller_calls_the_c_echo() {
    let app = application(
        &["e2e-go-caller", "e2e-c-echo", "e2e-go-echo"],
        Some("e2e-c-echo"),
    );
    assert_eq!(
        drive(&app, "e2e-go-caller", "hi"),
        expected("1:OK:c,2:OK:go")
    );
}

#[test]
fn c_caller_calls_the_go_echo() {
    let app = application(
        &["e2e-c-caller", "e2e-go-echo", "e2e-c-echo"],
        Some("e2e-go-echo"),
    );
    assert_eq!(
        drive(&app, "e2e-c-caller", "hi"),
        expected("1:OK:go,2:OK:c")
    );
    // The Go driver's test, word for word, with the C driver: a WAT voter
    // that answers and one that fails.
    let c = e2e();
    let yes = c.encode("Msg", json!({"Text": "wat"}));
    let mut b = AppBuilder::new(runtime());
    for name in ["e2e-c-caller", "e2e-go-echo"] {
        let m = module(name);
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.module(
        common::wat_voter(Some(&yes), "")
            .load_into(runtime(), "wat-yes")
            .unwrap(),
    )
    .module(
        common::wat_voter(None, "no vote")
            .load_into(runtime(), "wat-no")
            .unwrap(),
    );
    let app = b.build().unwrap();
    assert_eq!(
        drive(&app, "e2e-c-caller", "hi"),
        expected(
            "1:OK:go,2:OK:wat,3:APPLICATION_ERROR:callee 3: APPLICATION_ERROR: \
             module `wat-no`, e2e.Voter.vote: application error: no vote"
        )
    );
    // A malformed argument fails the driver's call cleanly.
    let err = app
        .call(
            "e2e-c-caller",
            "e2e.Driver",
            "run",
            &[Arg::Bytes(&[7u8; 16])],
        )
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::BadArgument), "{err}");
    assert!(
        err.to_string().contains("e2e.Driver.run: argument m"),
        "{err}"
    );

    // And the C echo, C to C.
    let app = app_with_c_echo();
    assert_eq!(drive(&app, "e2e-c-caller", "hi"), expected("1:OK:c"));
}

fn app_with_c_echo() -> App {
    application(&["e2e-c-caller", "e2e-c-echo"], None)
}

#[test]
fn a_trapping_c_voter_keeps_the_other_results() {
    let app = application(
        &["e2e-c-caller", "e2e-go-echo", "e2e-c-echo"],
        Some("e2e-go-echo"),
    );
    let answer = drive(&app, "e2e-c-caller", "trap");
    let prefix = "echo=trap/42 peek=trap@4096 votes=1:OK:go,2:TRAP:callee 2: TRAP: ";
    assert!(answer.starts_with(prefix), "{answer}");
    assert!(answer.contains("e2e-c-echo"), "{answer}");
    assert_eq!(app.stats().instances_discarded, 1);

    // The Go driver sees the same, and so does the host's own fan-out.
    let app = application(
        &["e2e-go-caller", "e2e-go-echo", "e2e-c-echo"],
        Some("e2e-go-echo"),
    );
    let answer = drive(&app, "e2e-go-caller", "trap");
    assert!(answer.starts_with(prefix), "{answer}");
    let msg = e2e().encode("Msg", json!({"Text": "trap"}));
    let all = app
        .call_all("e2e.Voter", "vote", &[Arg::Bytes(&msg)])
        .unwrap();
    let statuses: Vec<_> = all
        .iter()
        .map(|r| {
            (
                r.module.as_str(),
                r.result.as_ref().err().and_then(|e| e.status()),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [("e2e-go-echo", None), ("e2e-c-echo", Some(Status::Trap))]
    );
    // The next vote gets a fresh C instance.
    let msg = e2e().encode("Msg", json!({"Text": "again"}));
    let all = app
        .call_all("e2e.Voter", "vote", &[Arg::Bytes(&msg)])
        .unwrap();
    assert!(all.iter().all(|r| r.result.is_ok()));
}

#[test]
fn columnist_joins_and_walks_its_column_first() {
    let c = Codec::load("examples/arena/arena.km");
    let app = application(&["arena-columnist"], None);
    let hello = call_json(
        &c,
        &app,
        "arena-columnist",
        "join",
        json!({"Width": 8, "Height": 8, "Ticks": 10}),
    );
    assert_eq!(hello["Name"], "columnist");
    assert_eq!(hello["Language"], "C");

    let cases = [
        (json!([{"X": 5, "Y": 2}, {"X": 0, "Y": 0}]), "East"),
        (json!([{"X": 4, "Y": 0}, {"X": 7, "Y": 7}]), "North"),
        (json!([{"X": 0, "Y": 3}]), "South"),
        (json!([{"X": 0, "Y": 2}]), "West"),
        (json!([{"X": 2, "Y": 2}]), "Stay"),
        (json!([]), "Stay"),
        // A coin off the board is ignored.
        (json!([{"X": 2, "Y": -1}, {"X": 2, "Y": 5}]), "South"),
    ];
    for (coins, want) in cases {
        let state = common::board_state(&c, &app, "columnist", coins.clone());
        let out = app
            .call(
                "arena-columnist",
                "arena.Bot",
                "think",
                &[Arg::Region(state)],
            )
            .unwrap();
        let got = c.decode("Order", &out.to_vec(&app).unwrap());
        assert_eq!(got["Move"], want, "coins {coins}");
    }
}

#[test]
fn describe_and_unknown_function() {
    let app = app_with_c_echo();
    let names = |m: usize, exports: bool| -> Vec<String> {
        let desc = app.modules()[m].module.descriptor();
        let side = if exports {
            &desc.exports
        } else {
            &desc.imports
        };
        side.iter().map(|i| i.name.clone()).collect()
    };
    assert_eq!(names(0, true), ["e2e.Driver"]);
    assert_eq!(names(0, false), ["e2e.Echo", "e2e.Voter"]);
    assert_eq!(names(1, true), ["e2e.Echo", "e2e.Voter"]);
    assert!(names(1, false).is_empty());
    let desc = app.modules()[1].module.descriptor();
    let regions: Vec<&str> = desc.memories.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(regions, ["e2e.shared", "e2e.out"]);
    let stamp = &desc.exports[0].functions[3];
    assert_eq!(stamp.name, "stamp");
    assert_eq!(
        stamp.result.as_ref().map(|r| r.memory.as_deref()),
        Some(Some("e2e.out"))
    );
    let err = app.call("e2e-c-echo", "e2e.Echo", "nope", &[]).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}
