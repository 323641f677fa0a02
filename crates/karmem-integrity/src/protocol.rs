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

fn run(request: &str) -> Result<String, String> {
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
    match cmd {
        "produce" => {
            let seed = arg
                .parse::<u64>()
                .map_err(|e| format!("seed {arg:?}: {e}"))?;
            Ok(hex(&produce(version, seed)?))
        }
        "consume" => Ok(consume(version, &message()?)),
        "stream" => Ok(stream_line(version, &message()?)),
        "roundtrip" => Ok(roundtrip_line(version, &message()?)),
        other => Err(format!("unknown command {other:?}")),
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
