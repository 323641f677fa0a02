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

/// One log line of a guest.
#[derive(Clone, Copy, Debug)]
pub struct LogRecord<'a> {
    /// The module name.
    pub module: &'a str,
    pub level: LogLevel,
    /// UTF-8 (invalid bytes replaced), at most 4 KiB, no trailing newline.
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
