//! The arena's printed output: the line-up, one line per tick, standings.

use karmem_host::{escape_text, App, LogLevel, LogRecord, LogSink};

use crate::arena::{Outcome, Player, Report};

/// Guest log lines (warnings and errors) with `--guest-log`; off by
/// default, so the game stays readable when a Go bot dumps its goroutines.
pub struct GuestLog {
    pub enabled: bool,
}

impl LogSink for GuestLog {
    fn log(&self, r: &LogRecord<'_>) {
        if self.enabled && r.level <= LogLevel::Warn {
            eprintln!("         [{}] {}: {}", r.module, r.level.name(), r.message);
        }
    }
}

/// A name a bot chose (it reaches us through the world, a guest too):
/// escaped, so it cannot start a line or drive the terminal.
fn shown(text: &str) -> String {
    escape_text(text.as_bytes(), 64)
}

pub fn lineup(r: &Report) {
    println!("players:");
    for p in &r.players {
        println!(
            "  {:<10} {:<6} starts at ({:>2},{:>2})",
            shown(&p.name),
            shown(&p.language),
            p.at.x,
            p.at.y
        );
    }
    println!();
}

/// `tick   7 | greedy 3 | sweeper 2 | looper out | ...` (scores) plus a
/// line for each call that failed this tick.
pub fn tick(r: &Report) {
    let cells: Vec<String> = r
        .players
        .iter()
        .map(|p| {
            if p.out {
                format!("{} out", shown(&p.name))
            } else {
                format!("{} {}", shown(&p.name), p.score)
            }
        })
        .collect();
    println!("tick {:>3} | {}", r.tick, cells.join(" | "));
    for p in r
        .players
        .iter()
        .filter(|p| p.last != Outcome::OK && p.last != Outcome::OUT)
    {
        println!(
            "         {} {} (strike {})",
            shown(&p.name),
            p.last.word(),
            p.strikes
        );
    }
}

pub fn standings(r: &Report, app: &App) {
    let mut ranked: Vec<&Player> = r.players.iter().collect();
    ranked.sort_by(|a, b| b.score.cmp(&a.score).then(a.out.cmp(&b.out)));
    println!("\nfinal standings after {} ticks:", r.tick);
    for (i, p) in ranked.iter().enumerate() {
        let status = if p.out {
            format!("out after {} strikes", p.strikes)
        } else if p.strikes > 0 {
            format!("{} strike(s)", p.strikes)
        } else {
            "clean".to_string()
        };
        let coins = if p.score == 1 { "coin " } else { "coins" };
        println!(
            "  {}. {:<10} {:<6} {:>3} {coins}  {}",
            i + 1,
            shown(&p.name),
            shown(&p.language),
            p.score,
            status
        );
    }
    let s = app.stats();
    println!(
        "\nruntime: {} guest instances discarded after failures; the host and the other bots kept running",
        s.instances_discarded
    );
}
