//! A misbehaving arena bot: plays like `greedy`, then from tick 3 never
//! returns. Its deadline (the manifest's `timeout_ms`) cuts each such call
//! off with TIMEOUT; the world counts strikes and the game goes on.

// Generated bindings: a bot uses only part of them.
#[allow(dead_code)]
mod arena {
    include!(concat!(env!("OUT_DIR"), "/arena_guest.rs"));
}
#[path = "../../arena-greedy/src/play.rs"]
mod play;

use arena::{Hello, Order, RulesView, StateView};
use karmem_guest::Error;

const NAME: &str = "looper";

#[derive(Default)]
struct Looper;

impl arena::bot::Bot for Looper {
    fn join(&mut self, _rules: RulesView<'_, karmem::Trusted>) -> Result<Hello, Error> {
        Ok(play::hello(NAME))
    }

    fn think(&mut self, state: StateView<'_>) -> Result<Order, Error> {
        if state.tick() >= 3 {
            // An infinite loop the optimiser cannot remove.
            let mut n: u64 = 0;
            loop {
                n = core::hint::black_box(n.wrapping_add(1));
            }
        }
        Ok(Order {
            move_: play::next_move(&state, NAME),
        })
    }
}

karmem_guest::module! {
    exports: [arena::bot::export::<Looper>()],
    imports: [],
}
