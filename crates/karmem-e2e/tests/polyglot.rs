//! The cross-language e2e guests (schema guests/go/e2e-go.km): one echo
//! module (exports Echo and Voter) and one caller module (exports Driver,
//! imports Echo and Voter) per guest language. Every echo must behave the
//! same from the host, and every caller must reach every echo directly and
//! all voters by fan-out, whatever their languages: the guest ABI
//! (docs/abi.md) and the format are what they share, nothing else.

mod common;

use std::sync::OnceLock;

use common::{module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, GuestModule, ModuleOptions, Output, Pattern, Status};
use karmem_testkit::wat_guest::{func, iface, param, Guest};
use serde_json::{json, Value};

/// The echo modules and the text their Voter answers with.
const ECHOES: &[(&str, &str)] = &[("e2e-go-echo", "go"), ("e2e-rust-echo", "rust")];
/// The caller modules.
const CALLERS: &[&str] = &["e2e-go-caller", "e2e-rust-caller"];

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::load("guests/go/e2e-go.km"))
}

fn msg(v: Value) -> Vec<u8> {
    codec().encode("Msg", v)
}

fn unmsg(app: &App, out: Output) -> Value {
    codec().output("Msg", app, out)
}

fn app_of(names: &[&str]) -> App {
    let mut b = AppBuilder::new(runtime());
    for name in names {
        let m = module(name);
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    b.build().unwrap()
}

#[test]
fn every_echo_answers_the_host() {
    for &(echo, _) in ECHOES {
        let app = app_of(&[echo]);
        let out = app
            .call(
                echo,
                "e2e.Echo",
                "echo",
                &[Arg::Bytes(&msg(json!({"Text": "héllo", "Number": 41})))],
            )
            .unwrap_or_else(|e| panic!("{echo}: {e}"));
        let got = unmsg(&app, out);
        assert_eq!(got["Text"], "héllo", "{echo}");
        assert_eq!(got["Number"], 42, "{echo}");
        let out = app.call(echo, "e2e.Echo", "nop", &[]).unwrap();
        assert_eq!(out, Output::Empty, "{echo}");
    }
}

#[test]
fn every_echo_reads_a_region_argument_in_place() {
    for &(echo, _) in ECHOES {
        let app = app_of(&[echo]);
        let m = msg(json!({"Text": "in place", "Number": 7}));
        let region = app.region("e2e.shared").unwrap();
        let at = 8192;
        region.write(at, &m).unwrap();
        let slice = region.slice(at, m.len() as u32).unwrap();
        let out = app
            .call(echo, "e2e.Echo", "peek", &[Arg::Region(slice)])
            .unwrap_or_else(|e| panic!("{echo}: {e}"));
        let got = unmsg(&app, out);
        assert_eq!(got["Text"], "in place", "{echo}");
        // The guest found the message inside its window, at the offset the
        // host wrote it to: nothing was copied.
        assert_eq!(got["Number"], at, "{echo}");
        // A copied argument for a region-bound parameter is refused by the
        // host before the guest runs.
        let err = app
            .call(echo, "e2e.Echo", "peek", &[Arg::Bytes(&m)])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{echo}: {err}");
    }
}

#[test]
fn every_echo_returns_a_region_result_and_cannot_write_a_read_only_window() {
    for &(echo, _) in ECHOES {
        let app = app_of(&[echo]);
        let m = msg(json!({"Text": "stamped", "Number": 1}));
        let out = app
            .call(echo, "e2e.Echo", "stamp", &[Arg::Bytes(&m)])
            .unwrap_or_else(|e| panic!("{echo}: {e}"));
        // The result stayed in the region, at the start of the guest's window.
        let Output::Region(slice) = out else {
            panic!("{echo}: stamp returned {out:?}, not a region slice");
        };
        assert_eq!(slice.offset, 0, "{echo}");
        assert_eq!(unmsg(&app, out)["Number"], 101, "{echo}");

        // Writing into a window the exporter may only read fails the call
        // and leaves the region's bytes unchanged.
        let region = app.region("e2e.shared").unwrap();
        region.write(0, &m).unwrap();
        let slice = region.slice(0, m.len() as u32).unwrap();
        let err = app
            .call(echo, "e2e.Echo", "scribble", &[Arg::Region(slice)])
            .unwrap_err();
        assert_eq!(
            err.status(),
            Some(Status::ReadOnlyViolation),
            "{echo}: {err}"
        );
        assert_eq!(region.to_vec(slice).unwrap(), m, "{echo}");
        // A fresh instance serves the next call.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&m)])
            .unwrap();
        assert_eq!(unmsg(&app, out)["Number"], 2, "{echo}");
    }
}

#[test]
fn every_echo_refuses_a_malformed_argument_and_reports_application_errors() {
    for &(echo, _) in ECHOES {
        let app = app_of(&[echo]);
        // Not a Karmem message: the generated handler's validation refuses it.
        let err = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&[0xff; 24])])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{echo}: {err}");

        let m = msg(json!({"Text": "on purpose"}));
        let err = app
            .call(echo, "e2e.Echo", "fail", &[Arg::Bytes(&m)])
            .unwrap_err();
        assert_eq!(
            err.status(),
            Some(Status::ApplicationError),
            "{echo}: {err}"
        );
        assert!(
            err.to_string().contains("fail: on purpose"),
            "{echo}: {err}"
        );
        // An application error keeps the instance.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&m)])
            .unwrap();
        assert_eq!(unmsg(&app, out)["Number"], 1, "{echo}");
        assert_eq!(app.stats().instances_discarded, 0, "{echo}");
    }
}

/// A WAT exporter of `e2e.Voter` that fails with an application error.
fn wat_refuser() -> GuestModule {
    let voter = iface(
        "e2e.Voter",
        Pattern::FanOut,
        vec![],
        vec![func(
            "vote",
            vec![param("q", "e2e.Msg", None)],
            Some(param("result", "e2e.Msg", None)),
        )],
    );
    let error = "no vote";
    Guest::new(vec![voter], vec![])
        .func(
            "e2e.Voter",
            "vote",
            &format!(
                "(call $error (i32.const 2048) (i32.const {})) (i32.const 3)",
                error.len()
            ),
        )
        .extra(&format!("(data (i32.const 2048) \"{error}\")"))
        .load_into(runtime(), "wat-no")
        .unwrap()
}

/// `1:…,2:…,…,n:…` cut into its n entries (a message may hold commas).
fn split_votes(votes: &str, n: usize) -> Vec<&str> {
    let mut rest = votes;
    let mut out = Vec::new();
    for k in 2..=n {
        let at = rest
            .find(&format!(",{k}:"))
            .unwrap_or_else(|| panic!("no vote {k} in {votes:?}"));
        out.push(&rest[..at]);
        rest = &rest[at + 1..];
    }
    out.push(rest);
    out
}

/// Every caller calls every echo (bound to it) directly, and every echo
/// module's Voter plus a failing WAT voter by fan-out. With the text
/// "trap", the Rust voter traps: its callee reports TRAP and the others'
/// answers are kept.
#[test]
fn every_caller_reaches_every_echo_and_all_voters() {
    for &caller in CALLERS {
        for &(echo, _) in ECHOES {
            let mut b = AppBuilder::new(runtime());
            let c = module(caller);
            b.module_with(
                c.clone(),
                karmem_e2e::trusting(&c, ModuleOptions::default()),
            );
            for &(voter, _) in ECHOES {
                let m = module(voter);
                b.module_with(
                    m.clone(),
                    karmem_e2e::trusting(&m, ModuleOptions::default()),
                );
            }
            b.module(wat_refuser());
            b.bind(caller, "e2e.Echo", echo);
            let app = b.build().unwrap();

            for text in ["hi", "trap"] {
                let out = app
                    .call(
                        caller,
                        "e2e.Driver",
                        "run",
                        &[Arg::Bytes(&msg(json!({"Text": text, "Number": 41})))],
                    )
                    .unwrap_or_else(|e| panic!("{caller} → {echo}: {e}"));
                let got = unmsg(&app, out);
                let answer = got["Text"].as_str().unwrap();
                let (head, votes) = answer
                    .split_once(" votes=")
                    .unwrap_or_else(|| panic!("{caller} → {echo}: {answer}"));
                // echo: copied argument and result. peek: the caller wrote
                // the message at offset 4096 of its window; the exporter
                // found it at the same offset of its own.
                assert_eq!(
                    head,
                    format!("echo={text}/42 peek={text}@4096"),
                    "{caller} → {echo}"
                );
                let votes = split_votes(votes, ECHOES.len() + 1);
                for (k, &(voter, lang)) in ECHOES.iter().enumerate() {
                    let callee = k + 1;
                    let want = if text == "trap" && lang == "rust" {
                        format!("{callee}:TRAP:callee {callee}: TRAP: ")
                    } else {
                        format!("{callee}:OK:{lang}")
                    };
                    assert!(
                        votes[k].starts_with(&want),
                        "{caller} → {echo}, voter {voter}: {:?} does not start with {want:?}",
                        votes[k]
                    );
                }
                let last = ECHOES.len() + 1;
                assert!(
                    votes[last - 1].starts_with(&format!(
                        "{last}:APPLICATION_ERROR:callee {last}: APPLICATION_ERROR: "
                    )),
                    "{caller} → {echo}: {answer}"
                );
                assert!(
                    votes[last - 1].ends_with("no vote"),
                    "{caller} → {echo}: {answer}"
                );
            }
        }
    }
}
