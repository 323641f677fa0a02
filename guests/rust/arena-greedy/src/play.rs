//! The move of a well-behaved Rust bot, shared by the arena's Rust bots
//! (the misbehaving ones play like this until they misbehave).

use crate::arena::{Hello, Move, StateView};

/// What every Rust bot answers to `join`.
pub fn hello(name: &str) -> Hello {
    Hello {
        name: name.into(),
        language: "Rust".into(),
    }
}

/// Toward the nearest coin, reading the state in place: the coins are two
/// SoA columns (`&[i16]` slices over the shared board), no copy.
pub fn next_move(state: &StateView<'_>, name: &str) -> Move {
    let players = state.players();
    let Some(me) = players.iter().find(|p| p.name() == name) else {
        // Not (yet) in the game under this name: stay put.
        return Move::STAY;
    };
    let coins = state.coins();
    match arena_tactics::toward_nearest((me.at_x(), me.at_y()), coins.x(), coins.y()) {
        (1, _) => Move::EAST,
        (-1, _) => Move::WEST,
        (_, 1) => Move::SOUTH,
        (_, -1) => Move::NORTH,
        _ => Move::STAY,
    }
}
