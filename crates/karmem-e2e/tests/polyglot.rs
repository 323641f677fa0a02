//! The cross-language e2e guests (schema guests/polyglot.km): one echo
//! module (exports Echo and Voter) and one caller module (exports Driver,
//! imports Echo and Voter) per guest language. Every echo must behave the
//! same from the host, and every caller must reach every echo directly and
//! all voters by fan-out, whatever their languages: the guest ABI
//! (docs/abi.md) and the format are what they share, nothing else.

mod common;

use std::sync::OnceLock;

use common::{module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, ModuleOptions, Output, Status};
use serde_json::{json, Value};

/// The echo modules and the text their Voter answers with.
const ECHOES: &[(&str, &str)] = &[
    ("e2e-go-echo", "go"),
    ("e2e-rust-echo", "rust"),
    ("e2e-c-echo", "c"),
    ("e2e-zig-echo", "zig"),
    ("e2e-as-echo", "as"),
];
/// The caller modules.
const CALLERS: &[&str] = &[
    "e2e-go-caller",
    "e2e-rust-caller",
    "e2e-c-caller",
    "e2e-zig-caller",
    "e2e-as-caller",
];

fn codec() -> &'static Codec {
    static C: OnceLock<Codec> = OnceLock::new();
    C.get_or_init(|| Codec::load("guests/polyglot.km"))
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
        // An absent (empty) argument reads as the empty message.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&[])])
            .unwrap_or_else(|e| panic!("{echo}: {e}"));
        let got = unmsg(&app, out);
        assert_eq!(
            (got["Text"].as_str(), got["Number"].as_u64()),
            (Some(""), Some(1)),
            "{echo}"
        );
        let out = app.call(echo, "e2e.Echo", "nop", &[]).unwrap();
        assert_eq!(out, Output::Empty, "{echo}");
        // Many calls in one instance: memory for arguments and results is
        // reused, not leaked (600 calls moving 60 KB in and out each would
        // leak past the default 64 MiB memory limit).
        let big = msg(json!({"Text": "x".repeat(60_000), "Number": 1}));
        for k in 0..600 {
            app.call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&big)])
                .unwrap_or_else(|e| panic!("{echo}, call {k}: {e}"));
        }
        assert_eq!(app.stats().instances_discarded, 0, "{echo}");
    }
}

#[test]
fn every_module_describes_its_interfaces_and_refuses_unknown_functions() {
    for &(echo, _) in ECHOES {
        let app = app_of(&[echo]);
        let desc = app.modules()[0].module.descriptor();
        let names: Vec<&str> = desc.exports.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["e2e.Echo", "e2e.Voter"], "{echo}");
        assert!(desc.imports.is_empty(), "{echo}");
        let regions: Vec<&str> = desc.memories.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(regions, ["e2e.shared", "e2e.out"], "{echo}");
        let functions: Vec<&str> = desc.exports[0]
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(
            functions,
            ["echo", "peek", "fail", "stamp", "scribble", "nop", "access"],
            "{echo}"
        );
        let stamp = &desc.exports[0].functions[3];
        assert_eq!(
            stamp.result.as_ref().and_then(|r| r.memory.as_deref()),
            Some("e2e.out"),
            "{echo}"
        );
        let err = app.call(echo, "e2e.Echo", "nope", &[]).unwrap_err();
        assert!(err.to_string().contains("nope"), "{echo}: {err}");
    }
    for &caller in CALLERS {
        let desc = module(caller).descriptor().clone();
        let names: Vec<&str> = desc.exports.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["e2e.Driver"], "{caller}");
        let names: Vec<&str> = desc.imports.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["e2e.Echo", "e2e.Voter"], "{caller}");
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
        let m = common::stamp_and_scribble(codec(), &app, echo);
        // The scribbler's instance was discarded; a fresh one serves the
        // next call.
        assert_eq!(app.stats().instances_discarded, 1, "{echo}");
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
        // Not a message; a message whose text runs past its declared end;
        // one whose text is not UTF-8: the validation refuses all three.
        let mut truncated = msg(json!({"Text": "too long to fit"}));
        let keep = truncated.len() - 16;
        truncated.truncate(keep);
        truncated[4..8].copy_from_slice(&(keep as u32).to_le_bytes());
        // Text that is not UTF-8.
        let mut broken = msg(json!({"Text": "abcdefgh"}));
        let at = broken.windows(8).position(|w| w == b"abcdefgh").unwrap();
        broken[at] = 0xff;
        for (what, bad) in [
            ("junk", vec![0xffu8; 24]),
            ("truncated", truncated),
            ("not UTF-8", broken),
        ] {
            let err = app
                .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&bad)])
                .expect_err(&format!("{echo} accepted the {what} argument"));
            assert_eq!(
                err.status(),
                Some(Status::BadArgument),
                "{echo}, {what}: {err}"
            );
        }
        // A valid message at a misaligned position of the shared region.
        let m = msg(json!({"Text": "odd"}));
        let region = app.region("e2e.shared").unwrap();
        region.write(3, &m).unwrap();
        let slice = region.slice(3, m.len() as u32).unwrap();
        let err = app
            .call(echo, "e2e.Echo", "peek", &[Arg::Region(slice)])
            .unwrap_err();
        assert_eq!(
            err.status(),
            Some(Status::BadArgument),
            "{echo}, misaligned: {err}"
        );

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
        // None of these discards the instance.
        let out = app
            .call(echo, "e2e.Echo", "echo", &[Arg::Bytes(&m)])
            .unwrap();
        assert_eq!(unmsg(&app, out)["Number"], 1, "{echo}");
        assert_eq!(app.stats().instances_discarded, 0, "{echo}");
    }
}

#[test]
fn every_caller_refuses_a_malformed_argument() {
    for &caller in CALLERS {
        let mut modules = vec![caller];
        modules.extend(ECHOES.iter().map(|&(echo, _)| echo));
        let mut b = AppBuilder::new(runtime());
        for name in &modules {
            let m = module(name);
            b.module_with(
                m.clone(),
                karmem_e2e::trusting(&m, ModuleOptions::default()),
            );
        }
        b.bind(caller, "e2e.Echo", ECHOES[0].0);
        let app = b.build().unwrap();
        let err = app
            .call(caller, "e2e.Driver", "run", &[Arg::Bytes(&[7u8; 16])])
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::BadArgument), "{caller}: {err}");
    }
}

/// The host's own fan-out over every language's voter: with "trap", every
/// voter but Go's traps, each reported on its own; the next vote gets fresh
/// instances and every voter answers.
#[test]
fn host_fan_out_keeps_the_answers_of_the_voters_that_did_not_trap() {
    let names: Vec<&str> = ECHOES.iter().map(|&(echo, _)| echo).collect();
    let app = app_of(&names);
    let all = app
        .call_all(
            "e2e.Voter",
            "vote",
            &[Arg::Bytes(&msg(json!({"Text": "trap"})))],
        )
        .unwrap();
    assert_eq!(all.len(), ECHOES.len());
    for (r, &(echo, lang)) in all.iter().zip(ECHOES) {
        assert_eq!(r.module, echo);
        let status = r.result.as_ref().err().and_then(|e| e.status());
        let want = (lang != "go").then_some(Status::Trap);
        assert_eq!(status, want, "{echo}");
    }
    assert_eq!(app.stats().instances_discarded as usize, ECHOES.len() - 1);
    let all = app
        .call_all(
            "e2e.Voter",
            "vote",
            &[Arg::Bytes(&msg(json!({"Text": "again"})))],
        )
        .unwrap();
    for (r, &(echo, lang)) in all.iter().zip(ECHOES) {
        let out = r.result.as_ref().unwrap_or_else(|e| panic!("{echo}: {e}"));
        assert_eq!(unmsg(&app, out.clone())["Text"], lang, "{echo}");
    }
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
/// module's Voter plus a failing WAT voter and a WAT voter whose result is
/// not a message by fan-out. With the text "trap", every voter but Go's
/// traps: each of those callees reports TRAP and the Go voter's answer is
/// kept. The invalid result is caught by the caller's library (abi.md §5.3)
/// and reported as that callee's failure, never read as a vote.
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
            b.module(
                common::wat_voter(None, "no vote")
                    .load_into(runtime(), "wat-no")
                    .unwrap(),
            );
            // OK with 24 bytes that are no message (bad magic).
            b.module(
                common::wat_voter(Some(&[0xee; 24]), "")
                    .load_into(runtime(), "wat-junk")
                    .unwrap(),
            );
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
                let votes = split_votes(votes, ECHOES.len() + 2);
                for (k, &(voter, lang)) in ECHOES.iter().enumerate() {
                    let callee = k + 1;
                    let want = if text == "trap" && lang != "go" {
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
                // Each library's words for it: Go, Rust, Zig keep the host's
                // status OK, C has its own BAD_RESULT (docs/abi.md §5.3).
                let junk = votes[last];
                let k = last + 1;
                assert!(
                    (junk.starts_with(&format!("{k}:OK:"))
                        || junk.starts_with(&format!("{k}:BAD_RESULT:")))
                        && junk.contains(&format!("callee {k}: "))
                        && junk.contains("invalid result"),
                    "{caller} → {echo}: the invalid result was not reported: {junk:?}"
                );
            }
        }
    }
}
