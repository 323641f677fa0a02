//! Where guest log lines go: `karmem.log` and WASI stdout/stderr.

use std::sync::Mutex;

/// Severity of a log line (`karmem.log` level argument; docs/abi.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Error = 0,
    Warn = 1,
    Info = 2,
    Debug = 3,
    Trace = 4,
}

impl LogLevel {
    /// Levels outside 0..=4 are clamped to `Trace`.
    pub fn from_guest(level: i32) -> LogLevel {
        match level {
            i32::MIN..=0 => LogLevel::Error,
            1 => LogLevel::Warn,
            2 => LogLevel::Info,
            3 => LogLevel::Debug,
            _ => LogLevel::Trace,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }
}

/// Longest log line kept, in bytes of guest text (longer ones are cut).
pub(crate) const MAX_LINE: usize = 4096;

/// What one log line costs the call's `host_bytes` budget beyond its
/// bytes: a sink pays per line (a record, a write), so a flood of empty
/// lines is bounded as well as a flood of long ones.
pub(crate) const LINE_COST: u64 = 256;

/// Guest text made safe to show: at most `max` bytes of it, invalid UTF-8
/// replaced, trailing line breaks dropped, and every character that could
/// start a line of its own, pose as the host's output, drive a terminal or
/// hide or reorder text escaped (`\n`, `\x1b`, `\u{202e}`): C0, DEL and C1
/// controls, the line and paragraph separators U+2028/U+2029, and every
/// Unicode format character (bidirectional controls, zero-width joiners
/// and spaces, the byte order mark, tag characters). A backslash stays as
/// it is, so escaping escaped text changes nothing.
///
/// The one function for text that reaches a terminal or a log from a guest
/// or from module bytes (docs/security.md §2.5): log lines, WASI output,
/// guest error messages, and every [`crate::Error`] (whose messages quote
/// wasmparser, wasmtime and the WAT parser on module bytes).
pub fn escape_text(bytes: &[u8], max: usize) -> String {
    let mut cut = &bytes[..bytes.len().min(max)];
    while let [rest @ .., b'\n' | b'\r'] = cut {
        cut = rest;
    }
    let text = String::from_utf8_lossy(cut);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if must_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Whether `c` must never reach a terminal raw: the characters
/// [`escape_text`] escapes (controls, line and paragraph separators,
/// format characters).
pub fn must_escape(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

/// JSON text (as serde_json writes it) made safe for a terminal: every
/// character [`must_escape`] names, which JSON allows raw inside strings
/// (DEL, C1 controls, U+2028, bidirectional controls, ...), written as a
/// `\uXXXX` escape instead — the same JSON value, nothing hidden or
/// reordered on screen. For results of guests that a tool prints.
pub fn escape_json_text(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if must_escape(c) && c != '\n' {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The line and paragraph separators and the Unicode format characters
/// (general category Cf, Unicode 15): bidirectional overrides and
/// isolates ("Trojan source"), zero-width joiners and spaces, invisible
/// operators, the byte order mark, interlinear annotations and tags —
/// characters that end lines, reorder or hide the text around them.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061c}'
            | '\u{06dd}'
            | '\u{070f}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// One log line of a guest.
#[derive(Clone, Copy, Debug)]
pub struct LogRecord<'a> {
    /// The module name.
    pub module: &'a str,
    pub level: LogLevel,
    /// The guest's text: UTF-8 (invalid bytes replaced), at most 4 KiB of
    /// it, no control or bidirectional formatting characters (escaped as
    /// `\n`, `\x1b`, `\u{202e}`; a backslash stays as it is).
    pub message: &'a str,
}

/// Receives guest log lines. Called on the thread that runs the guest, while
/// the guest waits: keep it quick.
pub trait LogSink: Send + Sync {
    fn log(&self, record: &LogRecord<'_>);
}

/// Writes `[module] level: message` to stderr (the default sink).
#[derive(Clone, Copy, Debug, Default)]
pub struct StderrLog;

impl LogSink for StderrLog {
    fn log(&self, r: &LogRecord<'_>) {
        eprintln!("[{}] {}: {}", r.module, r.level.name(), r.message);
    }
}

/// Keeps every line in memory (tests, the CLI's summaries).
#[derive(Debug, Default)]
pub struct MemoryLog {
    lines: Mutex<Vec<(String, LogLevel, String)>>,
}

impl MemoryLog {
    pub fn new() -> MemoryLog {
        MemoryLog::default()
    }

    /// `(module, level, message)` in arrival order, leaving the log empty.
    pub fn take(&self) -> Vec<(String, LogLevel, String)> {
        std::mem::take(&mut *self.lines.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl LogSink for MemoryLog {
    fn log(&self, r: &LogRecord<'_>) {
        self.lines.lock().unwrap_or_else(|p| p.into_inner()).push((
            r.module.to_string(),
            r.level,
            r.message.to_string(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::escape_text as sanitize;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(sanitize(b"plain text\n", 100), "plain text");
        assert_eq!(
            sanitize(b"a\nb\r\x1b[2J\x07\x7f\tz\r\n", 100),
            "a\\nb\\r\\x1b[2J\\x07\\x7f\\tz"
        );
        assert_eq!(
            sanitize("\u{202e}x\u{85}".as_bytes(), 100),
            "\\u{202e}x\\u{85}"
        );
        assert_eq!(sanitize(b"\xff ok", 100), "\u{fffd} ok");
        assert_eq!(sanitize(b"abcdef", 3), "abc");
        assert_eq!(sanitize("été".as_bytes(), 3), "ét");
        assert_eq!(sanitize("é".as_bytes(), 1), "\u{fffd}");
        assert_eq!(
            sanitize("a\u{2028}b\u{2029}c\u{200d}d\u{feff}".as_bytes(), 100),
            "a\\u{2028}b\\u{2029}c\\u{200d}d\\u{feff}"
        );
    }

    /// JSON allows DEL, C1 controls, bidi controls and U+2028 raw in
    /// strings; they come out as `\uXXXX`, other characters as they were.
    #[test]
    fn json_text_keeps_its_value_and_loses_its_tricks() {
        let pretty = "{\n  \"a\": \"x\u{202e}\u{85}\u{2028}\u{1f600}\"\n}";
        assert_eq!(
            super::escape_json_text(pretty),
            "{\n  \"a\": \"x\\u202e\\u0085\\u2028\u{1f600}\"\n}"
        );
    }

    /// Escaped text has nothing left to escape.
    #[test]
    fn escaping_is_idempotent() {
        let all: String = (0u32..0x3000)
            .chain(0xe0000..0xe0080)
            .filter_map(char::from_u32)
            .collect();
        let once = sanitize(all.as_bytes(), usize::MAX);
        assert_eq!(sanitize(once.as_bytes(), usize::MAX), once);
        assert!(once.chars().all(|c| !c.is_control()));
    }
}
