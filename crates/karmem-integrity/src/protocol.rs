//! The line protocol of docs/integrity.md §4, which every member's command
//! speaks: one request per line, one answer line each.

use std::io::{BufRead, Write};

use crate::sink::{hex, unhex, Sink};
use crate::{produce, roundtrip, stream, Version};

/// Answers one request line.
pub fn answer(request: &str) -> String {
    line(run(request))
}

fn line(answer: Result<String, String>) -> String {
    answer.unwrap_or_else(|e| format!("error {}", e.replace('\n', " ")))
}

/// A request of §4: `<command> <old|new> <argument>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub version: Version,
    pub command: Command,
}

/// A request's command with its argument, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Produce(u64),
    Consume(Vec<u8>),
    Stream(Vec<u8>),
    Roundtrip(Vec<u8>),
}

impl Command {
    /// The command's word, which is also the guests' function name (§6).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Produce(_) => "produce",
            Command::Consume(_) => "consume",
            Command::Stream(_) => "stream",
            Command::Roundtrip(_) => "roundtrip",
        }
    }
}

/// Parses a request line; the error is the reason an `error` answer gives.
/// Every member parses requests here, natively and on the host side of the
/// guests (`crate::wasm`), so they refuse the same requests alike.
pub fn parse(request: &str) -> Result<Request, String> {
    let mut words = request.split_ascii_whitespace();
    let (Some(cmd), Some(version), Some(arg), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(format!(
            "expected `<command> <old|new> <argument>`, got {request:?}"
        ));
    };
    let version = Version::parse(version).ok_or_else(|| format!("unknown version {version:?}"))?;
    let message = || unhex(arg).ok_or_else(|| "the message is not hex".to_string());
    let command = match cmd {
        "produce" => Command::Produce(
            arg.parse::<u64>()
                .map_err(|e| format!("seed {arg:?}: {e}"))?,
        ),
        "consume" => Command::Consume(message()?),
        "stream" => Command::Stream(message()?),
        "roundtrip" => Command::Roundtrip(message()?),
        other => return Err(format!("unknown command {other:?}")),
    };
    Ok(Request { version, command })
}

fn run(request: &str) -> Result<String, String> {
    let Request { version, command } = parse(request)?;
    match command {
        Command::Produce(seed) => Ok(hex(&produce(version, seed)?)),
        Command::Consume(message) => Ok(consume(version, &message)),
        Command::Stream(message) => Ok(stream_line(version, &message)),
        Command::Roundtrip(message) => Ok(roundtrip_line(version, &message)),
    }
}

/// The answer to `consume`: the digest's hex, or `error <reason>`. Guests
/// answer with it too, for a message they read in place from their window.
pub fn consume(version: Version, message: &[u8]) -> String {
    line(stream(version, message).map(|bytes| {
        Sink {
            bytes,
            ..Default::default()
        }
        .digest_hex()
    }))
}

/// The answer to `stream`: the canonical bytes' hex, or `error <reason>`.
pub fn stream_line(version: Version, message: &[u8]) -> String {
    line(stream(version, message).map(|b| hex(&b)))
}

/// The answer to `roundtrip`: `ok`, or `error <reason>`.
pub fn roundtrip_line(version: Version, message: &[u8]) -> String {
    line(roundtrip(version, message).map(|()| "ok".to_string()))
}

/// Serves requests until the input ends.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for request in input.lines() {
        let request = request?;
        if request.trim().is_empty() {
            continue;
        }
        writeln!(output, "{}", answer(&request))?;
        output.flush()?;
    }
    Ok(())
}
