//! An arena bot in Rust: walks to the nearest coin.

// Generated bindings: a bot uses only part of them.
#[allow(dead_code)]
mod arena {
    include!(concat!(env!("OUT_DIR"), "/arena_guest.rs"));
}
mod play;

use arena::{Hello, Order, RulesView, StateView};
use karmem_guest::Error;

const NAME: &str = "greedy";

#[derive(Default)]
struct Greedy;

impl arena::bot::Bot for Greedy {
    fn join(&mut self, _rules: RulesView<'_, karmem::Trusted>) -> Result<Hello, Error> {
        Ok(play::hello(NAME))
    }

    fn think(&mut self, state: StateView<'_>) -> Result<Order, Error> {
        Ok(Order {
            move_: play::next_move(&state, NAME),
        })
    }
}

karmem_guest::module! {
    exports: [arena::bot::export::<Greedy>()],
    imports: [],
}
