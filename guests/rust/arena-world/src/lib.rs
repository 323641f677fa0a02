//! The arena's world: owns the game, publishes its state into the shared
//! region `arena.board` (read-write here, read-only for every bot), fans
//! `think` out to every bot through the runtime each tick, and applies the
//! moves. A bot whose call fails (trap, timeout, memory limit, a write into
//! the board) loses its move and takes a strike; the other bots' answers
//! arrive regardless (docs/abi.md §9, fan-out).

// Generated bindings: the world uses only part of them.
#[allow(dead_code)]
mod arena {
    include!(concat!(env!("OUT_DIR"), "/arena_guest.rs"));
}
mod game;

use arena::{Point, Report, Rules, SetupView, State, TickView};
use game::{Game, Outcome};
use karmem_guest::{Error, RegionSlice, Status};

#[derive(Default)]
struct World {
    game: Option<Game>,
}

impl arena::world::World for World {
    fn start(&mut self, setup: SetupView<'_, karmem::Trusted>) -> Result<Report, Error> {
        let mut g = Game::new(
            setup.width(),
            setup.height(),
            setup.ticks(),
            setup.coins(),
            setup.seed(),
            setup.strikes(),
        );
        let rules = Rules {
            width: g.width,
            height: g.height,
            ticks: g.ticks,
        };
        for r in arena::bot::Client.join(&rules)? {
            let hello = match r.status {
                Status::Ok => r.reply.decode().ok(),
                _ => None,
            };
            match hello {
                Some(h) => g.join(r.callee, &h.name, &h.language),
                // A bot that cannot even say hello plays under a made-up
                // name, with a strike.
                None => {
                    g.join(r.callee, &format!("bot-{}", r.callee), "?");
                    let i = g.players.len() - 1;
                    g.answer(i, Err(outcome(r.status)));
                }
            }
        }
        publish(&g)?;
        let report = report(&g);
        self.game = Some(g);
        Ok(report)
    }

    fn step(&mut self, tick: TickView<'_, karmem::Trusted>) -> Result<Report, Error> {
        let g = self.game.as_mut().ok_or("step before start")?;
        if g.finished() {
            return Ok(report(g));
        }
        g.begin_tick(tick.number());
        let state = publish(g)?;
        for r in arena::bot::Client.think(state)? {
            let Some(i) = g.player_of(r.callee) else {
                continue;
            };
            let answer = match r.status {
                Status::Ok => match r.reply.decode() {
                    Ok(order) => Ok(movement(order.move_)),
                    Err(_) => Err(Outcome::BadReply),
                },
                s => Err(outcome(s)),
            };
            g.answer(i, answer);
        }
        g.end_tick();
        publish(g)?;
        Ok(report(g))
    }
}

/// The game as the schema's `State`, written at the start of the board:
/// the bots read it there in place.
fn publish(g: &Game) -> Result<RegionSlice, Error> {
    let state = State {
        tick: g.tick,
        ticks: g.ticks,
        width: g.width,
        height: g.height,
        players: players(g),
        coins: g.coins.iter().map(|&(x, y)| Point { x, y }).collect(),
    };
    let board = karmem_guest::window("arena.board").ok_or("the board region is not mapped")?;
    board.write_message(0, &state)
}

fn players(g: &Game) -> Vec<arena::Player> {
    g.players
        .iter()
        .map(|p| arena::Player {
            name: p.name.clone(),
            language: p.language.clone(),
            at: Point { x: p.x, y: p.y },
            score: p.score,
            strikes: p.strikes,
            out: p.out,
            last: arena::Outcome(p.last as u8),
            callee: p.callee,
        })
        .collect()
}

fn report(g: &Game) -> Report {
    Report {
        tick: g.tick,
        players: players(g),
        coins_left: g.coins.len() as u32,
        finished: g.finished(),
    }
}

fn movement(m: arena::Move) -> game::Move {
    match m {
        arena::Move::NORTH => game::Move::North,
        arena::Move::SOUTH => game::Move::South,
        arena::Move::EAST => game::Move::East,
        arena::Move::WEST => game::Move::West,
        _ => game::Move::Stay,
    }
}

/// A failed call's status (docs/abi.md §5.3) as the game counts it.
fn outcome(s: Status) -> Outcome {
    match s {
        Status::Trap => Outcome::Trap,
        Status::Timeout => Outcome::Timeout,
        Status::MemoryLimit => Outcome::MemoryLimit,
        Status::ReadOnlyViolation => Outcome::ReadOnlyViolation,
        // The host cut the bot off: it is out (answers no longer count).
        Status::Suspended => Outcome::Out,
        _ => Outcome::Error,
    }
}

karmem_guest::module! {
    exports: [arena::world::export::<World>()],
    imports: [arena::bot::INFO],
}
