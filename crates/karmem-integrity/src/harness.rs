//! The harness of docs/integrity.md §5, shared by the native suite
//! (tests/suite.rs) and the one with WebAssembly members
//! (crates/karmem-e2e/tests/integrity.rs): members speak the line protocol
//! of §4, whether they are a process or a guest behind the host.

use std::io::{BufRead, BufReader, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::sink::unhex;

const VERSIONS: [&str; 2] = ["old", "new"];

/// A member of the suite: answers protocol requests (§4).
pub trait Member {
    fn name(&self) -> &str;
    /// The answer line to a request line (without the newline).
    fn ask(&mut self, request: &str) -> String;
}

/// The Rust member in this process (no command): answers through
/// `protocol::answer`, as the command does.
pub struct InProcess;

impl Member for InProcess {
    fn name(&self) -> &str {
        "rust"
    }

    fn ask(&mut self, request: &str) -> String {
        crate::protocol::answer(request)
    }
}

/// A member's running command.
pub struct Process {
    name: String,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Process {
    pub fn start(name: &str, mut command: Command) -> Process {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting the {name} member ({command:?}): {e}"));
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        Process {
            name: name.to_string(),
            child,
            input,
            output,
        }
    }
}

impl Member for Process {
    fn name(&self) -> &str {
        &self.name
    }

    fn ask(&mut self, request: &str) -> String {
        writeln!(self.input, "{request}")
            .and_then(|()| self.input.flush())
            .unwrap_or_else(|e| panic!("{}: writing a request: {e}", self.name));
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("{}: reading an answer: {e}", self.name));
        if line.is_empty() {
            panic!(
                "{}: the command ended (request: {})",
                self.name,
                short(request)
            );
        }
        line.trim_end().to_string()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn short(s: &str) -> &str {
    &s[..s.len().min(60)]
}

/// An answer that must not be an error.
fn must(m: &mut dyn Member, request: &str, seed: u64, what: &str) -> String {
    let a = m.ask(request);
    if let Some(reason) = a.strip_prefix("error ") {
        panic!("seed {seed}: {what} by {}: {reason}", m.name());
    }
    a
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `go` on PATH, or where scripts/setup.sh installs it.
fn go() -> PathBuf {
    let installed = Path::new("/usr/local/go/bin/go");
    match Command::new("go").arg("version").output() {
        Ok(o) if o.status.success() => PathBuf::from("go"),
        _ if installed.exists() => installed.to_path_buf(),
        _ => panic!("the Go member needs Go: run scripts/setup.sh (make test does)"),
    }
}

/// The Go member's command, built into `scratch` (go/internal/integrity).
pub fn go_native(scratch: &Path) -> Process {
    let bin = scratch.join("integrity-go");
    let built = Command::new(go())
        .current_dir(repo().join("go"))
        .args(["build", "-o"])
        .arg(&bin)
        .arg("./internal/integrity/cmd/integrity")
        .status()
        .expect("running go build");
    assert!(built.success(), "building the Go member failed");
    Process::start("go", Command::new(bin))
}

/// The C, TypeScript, Python, Zig and AssemblyScript members: commands
/// that their languages' scripts build (scripts/build-integrity-c.sh,
/// scripts/test-ts.sh, scripts/test-python.sh, scripts/build-integrity-zig.sh,
/// scripts/build-integrity-as.sh), found through an environment variable
/// rather than built here, so that the Rust suite does not need clang,
/// Node, Zig or asc (`make test` sets those up after it runs).
pub const BUILT_ELSEWHERE: [BuiltElsewhere; 5] = [
    BuiltElsewhere {
        name: "c",
        var: "KARMEM_INTEGRITY_C",
        what: "the command scripts/build-integrity-c.sh builds",
        runner: None,
    },
    BuiltElsewhere {
        name: "ts",
        var: "KARMEM_INTEGRITY_TS",
        what: "ts/dist/integrity/main.js, which scripts/test-ts.sh compiles",
        runner: Some("node"),
    },
    BuiltElsewhere {
        name: "python",
        var: "KARMEM_INTEGRITY_PY",
        what: "python/integrity/main.py, with the generated modules that scripts/test-python.sh writes (KARMEM_INTEGRITY_PY_GEN)",
        runner: Some("python3"),
    },
    BuiltElsewhere {
        name: "zig",
        var: "KARMEM_INTEGRITY_ZIG",
        what: "the command scripts/build-integrity-zig.sh builds",
        runner: None,
    },
    BuiltElsewhere {
        name: "as",
        var: "KARMEM_INTEGRITY_AS",
        what: "the main.mjs that scripts/build-integrity-as.sh writes next to the modules it compiles",
        runner: Some("node"),
    },
];

/// A member whose command is built by its language's script.
pub struct BuiltElsewhere {
    pub name: &'static str,
    /// The environment variable that names the command (or script).
    pub var: &'static str,
    /// What the variable must name, for the failure message.
    pub what: &'static str,
    /// The program that runs the script, if it is not itself a command.
    pub runner: Option<&'static str>,
}

fn built_elsewhere_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// Whether a member built elsewhere takes part: when `INTEGRITY_MEMBERS`
/// names it, or, without a list, when its variable gives its command (so
/// `make integrity` includes the C and TypeScript members once built, and
/// the default run stays Rust and Go).
pub fn wanted_built_elsewhere(m: &BuiltElsewhere) -> bool {
    match std::env::var("INTEGRITY_MEMBERS") {
        Ok(list) => list.split(',').any(|n| n == m.name),
        Err(_) => built_elsewhere_path(m.var).is_some(),
    }
}

/// Starts a member built elsewhere. A member that was asked for and cannot
/// start fails the run, with what to do: it is never skipped quietly.
pub fn start_built_elsewhere(m: &BuiltElsewhere) -> Process {
    let BuiltElsewhere {
        name,
        var,
        what,
        runner,
    } = *m;
    let path = built_elsewhere_path(var).unwrap_or_else(|| {
        panic!("the {name} member was asked for, but {var} is not set: it must name {what}")
    });
    assert!(
        path.exists(),
        "the {name} member: {var}={} does not exist (it must name {what})",
        path.display()
    );
    let command = match runner {
        Some(program) => {
            let mut c = Command::new(program);
            c.arg(&path);
            c
        }
        None => Command::new(&path),
    };
    let mut member = Process::start(name, command);
    // A command that starts but cannot serve (a script that does not load)
    // ends at once: ask it something now, so the failure names the member.
    let answer = member.ask("produce old 0");
    assert!(
        !answer.starts_with("error"),
        "the {name} member ({}) cannot produce: {answer}",
        path.display()
    );
    member
}

/// Whether the member `name` takes part: all do, unless
/// `INTEGRITY_MEMBERS` lists some (`rust,go-wasm`) — a way to look at one
/// language while another is broken, never a default.
pub fn wanted(name: &str) -> bool {
    std::env::var("INTEGRITY_MEMBERS").map_or(true, |list| list.split(',').any(|m| m == name))
}

/// The seeds to run: `INTEGRITY_SEEDS`, either a count `N` (seeds `0..N`)
/// or a range `A..B` (to replay the seed a failure named), else
/// `0..default`. A value that is neither is refused, so that a typo does
/// not quietly run the default.
pub fn seeds(default: u64) -> Range<u64> {
    match std::env::var("INTEGRITY_SEEDS") {
        Ok(text) => parse_seeds(&text)
            .unwrap_or_else(|| panic!("INTEGRITY_SEEDS={text:?}: expected N or A..B")),
        Err(_) => 0..default,
    }
}

fn parse_seeds(text: &str) -> Option<Range<u64>> {
    let text = text.trim();
    match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (a.parse().ok()?, b.parse().ok()?);
            (a <= b).then_some(a..b)
        }
        None => Some(0..text.parse().ok()?),
    }
}

/// Where two byte strings first differ, with the bytes around it.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let around = |x: &[u8]| {
        let from = at.saturating_sub(8).min(x.len());
        format!("{:02x?}", &x[from..x.len().min(at + 8)])
    };
    format!(
        "first difference at byte {at} (lengths {} and {}): {} vs {}",
        a.len(),
        b.len(),
        around(a),
        around(b)
    )
}

fn bytes(s: &str) -> Vec<u8> {
    unhex(s).expect("a member answered with something that is not hex")
}

/// §5: for each seed and producer version, every producer writes the same
/// bytes; every consumer of each version gives the same digest; every
/// member round-trips its own version's messages. Panics with the seed, the
/// members and the first differing byte on a disagreement.
pub fn run(members: &mut [Box<dyn Member>], seeds: Range<u64>) {
    for seed in seeds {
        for producer_version in VERSIONS {
            let request = format!("produce {producer_version} {seed}");
            let messages: Vec<String> = members
                .iter_mut()
                .map(|m| must(m.as_mut(), &request, seed, "producing"))
                .collect();
            if let Some(k) = messages.iter().position(|m| *m != messages[0]) {
                panic!(
                    "seed {seed}, {producer_version}: the {} and {} producers differ: {}",
                    members[0].name(),
                    members[k].name(),
                    first_difference(&bytes(&messages[0]), &bytes(&messages[k]))
                );
            }
            let message = &messages[0];
            for consumer_version in VERSIONS {
                let request = format!("consume {consumer_version} {message}");
                let what = format!("consuming a {producer_version} message as {consumer_version}");
                let digests: Vec<String> = members
                    .iter_mut()
                    .map(|m| must(m.as_mut(), &request, seed, &what))
                    .collect();
                if let Some(k) = digests.iter().position(|d| *d != digests[0]) {
                    let stream = format!("stream {consumer_version} {message}");
                    let a = bytes(&must(members[0].as_mut(), &stream, seed, "streaming"));
                    let b = bytes(&must(members[k].as_mut(), &stream, seed, "streaming"));
                    panic!(
                        "seed {seed}: the {producer_version} message read as {consumer_version}: \
                         the {} and {} consumers disagree; canonical streams: {}",
                        members[0].name(),
                        members[k].name(),
                        first_difference(&a, &b)
                    );
                }
            }
            let request = format!("roundtrip {producer_version} {message}");
            for m in members.iter_mut() {
                must(m.as_mut(), &request, seed, "round-tripping");
            }
        }
    }
}

/// Each member answers broken requests and hostile messages with an error
/// line, and keeps serving.
pub fn refuses_bad_requests(m: &mut dyn Member) {
    for bad in [
        "produce old nope",
        "produce ancient 1",
        "consume new zz",
        "consume new 4b4d",
        "consume old 00000000000000000000000000000000",
        "unknown new 00",
        "consume",
    ] {
        let a = m.ask(bad);
        assert!(
            a.starts_with("error "),
            "{}: {bad:?} answered {a:?}",
            m.name()
        );
    }
    let produced = m.ask("produce new 5");
    assert!(!produced.starts_with("error"), "{}: {produced}", m.name());
}

#[cfg(test)]
mod tests {
    use super::parse_seeds;

    #[test]
    fn seeds_are_a_count_or_a_range() {
        assert_eq!(parse_seeds("12"), Some(0..12));
        assert_eq!(parse_seeds(" 600..610 "), Some(600..610));
        assert_eq!(parse_seeds("7..7"), Some(7..7));
        assert_eq!(parse_seeds("9..3"), None);
        assert_eq!(parse_seeds("lots"), None);
        assert_eq!(parse_seeds("1..x"), None);
    }
}
