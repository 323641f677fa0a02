//! A misbehaving arena bot: plays like `greedy`, then from tick 2 tries to
//! give itself points by writing into the board — a region it may only
//! read. The store faults on the read-only window (docs/abi.md §6): the
//! call fails with READ_ONLY_VIOLATION and the board is unchanged.

// Generated bindings: a bot uses only part of them.
#[allow(dead_code)]
mod arena {
    include!(concat!(env!("OUT_DIR"), "/arena_guest.rs"));
}
#[path = "../../arena-greedy/src/play.rs"]
mod play;

use arena::{Hello, Order, RulesView, StateView};
use karmem_guest::Error;

const NAME: &str = "scribbler";

#[derive(Default)]
struct Scribbler;

impl arena::bot::Bot for Scribbler {
    fn join(&mut self, _rules: RulesView<'_, karmem::Trusted>) -> Result<Hello, Error> {
        Ok(play::hello(NAME))
    }

    fn think(&mut self, state: StateView<'_>) -> Result<Order, Error> {
        if state.tick() >= 2 {
            let board = karmem_guest::window("arena.board").ok_or("no board")?;
            // Overwrite the whole state with 0xff: every score becomes huge.
            // SAFETY: none — this is the attack. The window is mapped
            // read-only, so the first byte written faults and the runtime
            // fails this call; nothing is ever written.
            unsafe { core::ptr::write_bytes(board.ptr() as *mut u8, 0xff, 256) };
        }
        Ok(Order {
            move_: play::next_move(&state, NAME),
        })
    }
}

karmem_guest::module! {
    exports: [arena::bot::export::<Scribbler>()],
    imports: [],
}
