//! The arena demo's host (`make demo`): the paper's multiplayer game where
//! each player's bot is a WebAssembly module, possibly untrusted, written in
//! any guest language.
//!
//! The host loads the modules the manifest names (the `karmem run` format,
//! docs/manifest.md), finds the world (the module exporting `arena.World`)
//! and drives the game through it: `start` once, then `step` per tick. The
//! world owns the game state and writes it into the shared region
//! `arena.board`; on each step it fans `arena.Bot.think` out to every bot
//! through the runtime, the bots read the state in place (the region is
//! read-only for them) and answer with a move. A bot that traps, loops,
//! over-allocates or writes into the board fails its own call; the world
//! counts a strike, and after `--strikes` the player is out and the host
//! suspends its module, so it costs nothing from then on.

/// Message types and typed host bindings of arena.km (`--lang rust-host`).
#[allow(dead_code)] // generated: the host uses part of the API
mod arena {
    include!(concat!(env!("OUT_DIR"), "/arena_host.rs"));
}
mod show;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use karmem_host::App;
use karmem_manifest::Manifest;

use crate::arena::{Outcome, Report, Setup, Tick};

/// Run the arena: a coin-collecting game between WebAssembly bots.
#[derive(Parser)]
#[command(
    version,
    after_help = "Example:\n  karmem-arena examples/arena/arena.toml --ticks 30 --seed 7"
)]
struct Args {
    /// The application manifest (modules and their limits).
    #[arg(default_value = "examples/arena/arena.toml")]
    manifest: PathBuf,
    /// Number of ticks to play.
    #[arg(long, default_value_t = 40)]
    ticks: u32,
    /// Seed of the world's coin placement (same seed, same game).
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Board width in cells.
    #[arg(long, default_value_t = 20)]
    width: i16,
    /// Board height in cells.
    #[arg(long, default_value_t = 10)]
    height: i16,
    /// Coins on the board at any time (a taken coin reappears elsewhere).
    #[arg(long, default_value_t = 8)]
    coins: u16,
    /// Failed calls after which a bot is out.
    #[arg(long, default_value_t = 3)]
    strikes: u8,
    /// Print only the final standings.
    #[arg(long)]
    quiet: bool,
    /// Also print what the guests log (karmem.log, WASI stdout/stderr),
    /// e.g. the Go runtime's report when the hoarder runs out of memory.
    #[arg(long)]
    guest_log: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match play(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("karmem-arena: {failure}");
            ExitCode::FAILURE
        }
    }
}

/// Why a game could not be played.
enum Failure {
    /// The manifest, or a module it names: `file:line:col: error: ...`.
    Manifest(karmem_manifest::ManifestError),
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Manifest(e) => e.fmt(f),
            Failure::Other(m) => write!(f, "error: {m}"),
        }
    }
}

impl From<String> for Failure {
    fn from(m: String) -> Failure {
        Failure::Other(m)
    }
}

impl From<karmem_manifest::ManifestError> for Failure {
    fn from(e: karmem_manifest::ManifestError) -> Failure {
        Failure::Manifest(e)
    }
}

fn play(args: &Args) -> Result<(), Failure> {
    // The same manifest reader as `karmem run`: the grants, limits and
    // budgets in arena.toml are the host's, whatever the bots declare.
    let manifest = Manifest::load(&args.manifest)?;
    let runtime = manifest.runtime()?;
    let started = std::time::Instant::now();
    let log = Arc::new(show::GuestLog {
        enabled: args.guest_log,
    });
    let app = manifest.build(&runtime, log, |_| {})?;
    let world = arena::world::client(&app, &exporter_of(&app, arena::world::NAME)?)
        .map_err(|e| e.to_string())?;
    let stats = runtime.cache_stats();
    println!(
        "arena: {} modules loaded in {:.0?} ({} from the module cache, {} compiled)",
        app.modules().len(),
        started.elapsed(),
        stats.hits,
        stats.misses
    );

    let setup = Setup {
        width: args.width,
        height: args.height,
        ticks: args.ticks,
        coins: args.coins,
        seed: args.seed,
        strikes: args.strikes,
    };
    let mut report = decode(world.start(&setup))?;
    show::lineup(&report);

    let mut suspended = Vec::new();
    for number in 1..=args.ticks {
        report = decode(world.step(&Tick { number }))?;
        if !args.quiet {
            show::tick(&report);
        }
        // A player the world has put out: cut its module off, so its
        // timeouts (or worse) cost nothing from now on.
        for p in report.players.iter().filter(|p| p.out) {
            let Some(info) = app.modules().get(p.callee as usize) else {
                continue;
            };
            let module = info.module.name().to_string();
            if !suspended.contains(&module) {
                app.suspend(&module).map_err(|e| e.to_string())?;
                if !args.quiet {
                    println!("         host: `{module}` is out, module suspended");
                }
                suspended.push(module);
            }
        }
        if report.finished {
            break;
        }
    }
    show::standings(&report, &app);
    Ok(())
}

/// The one module exporting `interface`.
fn exporter_of(app: &App, interface: &str) -> Result<String, String> {
    let mut found = app.modules().iter().filter(|m| {
        m.module
            .descriptor()
            .exports
            .iter()
            .any(|i| i.name == interface)
    });
    match (found.next(), found.next()) {
        (Some(m), None) => Ok(m.module.name().to_string()),
        (None, _) => Err(format!("no module exports {interface}")),
        (Some(_), Some(_)) => Err(format!("several modules export {interface}")),
    }
}

/// The world's report, decoded (a malformed one is an error of the game).
fn decode(reply: karmem_host::Result<arena::Reply<Report>>) -> Result<Report, String> {
    reply
        .map_err(|e| e.to_string())?
        .decode()
        .map_err(|e| format!("the world's report is malformed: {e}"))
}

impl Outcome {
    /// How a call outcome reads in the summary.
    fn word(self) -> &'static str {
        match self {
            Outcome::OK => "ok",
            Outcome::TRAP => "trapped",
            Outcome::TIMEOUT => "timed out",
            Outcome::MEMORY_LIMIT => "hit its memory limit",
            Outcome::READ_ONLY_VIOLATION => "wrote into the read-only board",
            Outcome::ERROR => "failed",
            Outcome::BAD_REPLY => "sent a malformed order",
            Outcome::OUT => "out",
            _ => "unknown outcome",
        }
    }
}
