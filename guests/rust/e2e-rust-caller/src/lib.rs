//! The Rust member of the cross-language e2e guests (guests/polyglot.km):
//! exports Driver, whose `run` calls Echo (direct, copied and region-bound
//! arguments) and Voter (fan-out) from inside a guest and answers in the
//! format of guests/go/e2e-go-caller, whichever language the callees are.

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use core::fmt::Write;

use e2e::{Msg, MsgView};
use karmem_guest::{Error, Status};

/// Where the region-bound argument is written in this module's window
/// (the same offset as the Go caller, so replies compare across languages).
const PEEK_AT: u32 = 4096;

/// The ABI's name of a status (docs/abi.md §5), as the Go caller prints it.
fn status_name(s: Status) -> String {
    match s {
        Status::Ok => "OK".into(),
        Status::UnknownFunction => "UNKNOWN_FUNCTION".into(),
        Status::BadArgument => "BAD_ARGUMENT".into(),
        Status::ApplicationError => "APPLICATION_ERROR".into(),
        Status::Trap => "TRAP".into(),
        Status::Timeout => "TIMEOUT".into(),
        Status::MemoryLimit => "MEMORY_LIMIT".into(),
        Status::ReadOnlyViolation => "READ_ONLY_VIOLATION".into(),
        Status::Suspended => "SUSPENDED".into(),
        Status::BudgetExceeded => "BUDGET_EXCEEDED".into(),
        Status::Other(n) => format!("STATUS_{n}"),
    }
}

#[derive(Default)]
struct Driver;

impl e2e::driver::Driver for Driver {
    /// Answers `echo=<text>/<n> peek=<text>@<offset> votes=<callee>:<status>:<text>,...`.
    fn run(&mut self, m: MsgView<'_, karmem::Trusted>) -> Result<Msg, Error> {
        let input = Msg {
            text: m.text().to_string(),
            number: m.number(),
        };
        let mut out = String::new();

        let got = e2e::echo::Client
            .echo(&input)
            .map_err(|e| Error::new(format!("echo: {e}")))?;
        let got = got.view();
        let _ = write!(out, "echo={}/{}", got.text(), got.number());

        // A region-bound argument is written into this module's window and
        // passed by position.
        let w = karmem_guest::window("e2e.shared").ok_or("no window of e2e.shared")?;
        let slice = w.write_message(PEEK_AT, &input)?;
        let peeked = e2e::echo::Client
            .peek(slice)
            .map_err(|e| Error::new(format!("peek: {e}")))?;
        let peeked = peeked.view();
        let _ = write!(out, " peek={}@{}", peeked.text(), peeked.number());

        let votes = e2e::voter::Client
            .vote(&input)
            .map_err(|e| Error::new(format!("vote: {e}")))?;
        out.push_str(" votes=");
        for (k, v) in votes.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let text = if let Some(e) = &v.invalid {
                format!("callee {}: invalid result: {e:?}", v.callee)
            } else if v.status == Status::Ok {
                v.reply.view().text().to_string()
            } else {
                format!(
                    "callee {}: {}: {}",
                    v.callee,
                    status_name(v.status),
                    v.message
                )
            };
            let _ = write!(out, "{}:{}:{text}", v.callee, status_name(v.status));
        }
        Ok(Msg {
            text: out,
            number: 0,
        })
    }
}

karmem_guest::module! {
    exports: [e2e::driver::export::<Driver>()],
    imports: [e2e::echo::INFO, e2e::voter::INFO],
}
