//! The arena's rules, independent of the ABI: a grid, coins, players that
//! move one cell per tick and collect the coin they land on. A taken coin
//! reappears at a free cell chosen by a seeded generator, so a game is
//! determined by its seed and the bots' moves.

/// How a player's call ended (the schema's `Outcome`, as its number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok = 0,
    Trap = 1,
    Timeout = 2,
    MemoryLimit = 3,
    ReadOnlyViolation = 4,
    Error = 5,
    BadReply = 6,
    Out = 7,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Stay,
    North,
    South,
    East,
    West,
}

pub struct Player {
    pub name: String,
    pub language: String,
    pub callee: u32,
    pub x: i16,
    pub y: i16,
    pub score: u32,
    pub strikes: u8,
    pub out: bool,
    pub last: Outcome,
}

pub struct Game {
    pub width: i16,
    pub height: i16,
    pub ticks: u32,
    pub tick: u32,
    pub max_strikes: u8,
    pub coins: Vec<(i16, i16)>,
    pub players: Vec<Player>,
    rng: u64,
}

impl Game {
    /// A board of at least 2×2 cells with `coins` coins (fewer if the board
    /// is small).
    pub fn new(width: i16, height: i16, ticks: u32, coins: u16, seed: u64, strikes: u8) -> Game {
        let (width, height) = (width.clamp(2, 256), height.clamp(2, 256));
        let mut g = Game {
            width,
            height,
            ticks,
            tick: 0,
            max_strikes: strikes.max(1),
            coins: Vec::new(),
            players: Vec::new(),
            // xorshift64* must not start at zero.
            rng: seed ^ 0x9e37_79b9_7f4a_7c15,
        };
        let cells = width as usize * height as usize;
        for _ in 0..(coins as usize).min(cells / 2) {
            g.place_coin();
        }
        g
    }

    fn random(&mut self, below: u32) -> u32 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32 % below
    }

    fn free(&self, x: i16, y: i16) -> bool {
        !self.coins.contains(&(x, y)) && !self.players.iter().any(|p| (p.x, p.y) == (x, y))
    }

    fn place_coin(&mut self) {
        // Bounded tries: on a crowded board a coin may simply not reappear.
        for _ in 0..64 {
            let x = self.random(self.width as u32) as i16;
            let y = self.random(self.height as u32) as i16;
            if self.free(x, y) {
                self.coins.push((x, y));
                return;
            }
        }
    }

    /// A bot joined (in fan-out order). Players start spread along the
    /// board's border. A name already taken gets a `#n` suffix (that bot
    /// will not find itself in the state, and stays put).
    pub fn join(&mut self, callee: u32, name: &str, language: &str) {
        let mut unique = String::from(name);
        let mut n = 2;
        while self.players.iter().any(|p| p.name == unique) {
            unique = format!("{name}#{n}");
            n += 1;
        }
        let k = self.players.len() as i16;
        let (x, y) = match k % 4 {
            0 => (k / 4, 0),
            1 => (self.width - 1 - k / 4, self.height - 1),
            2 => (self.width - 1, k / 4),
            _ => (0, self.height - 1 - k / 4),
        };
        self.players.push(Player {
            name: unique,
            language: String::from(language),
            callee,
            x: x.clamp(0, self.width - 1),
            y: y.clamp(0, self.height - 1),
            score: 0,
            strikes: 0,
            out: false,
            last: Outcome::Ok,
        });
    }

    pub fn player_of(&self, callee: u32) -> Option<usize> {
        self.players.iter().position(|p| p.callee == callee)
    }

    /// Start a tick: every player still in is expected to answer.
    pub fn begin_tick(&mut self, number: u32) {
        self.tick = number;
        for p in &mut self.players {
            p.last = if p.out { Outcome::Out } else { Outcome::Error };
        }
    }

    /// Player `i`'s answer this tick: a move, or how its call failed.
    pub fn answer(&mut self, i: usize, answer: Result<Move, Outcome>) {
        if self.players[i].out {
            return;
        }
        match answer {
            Ok(m) => {
                self.players[i].last = Outcome::Ok;
                self.step(i, m);
            }
            Err(outcome) => self.strike(i, outcome),
        }
    }

    fn strike(&mut self, i: usize, outcome: Outcome) {
        let p = &mut self.players[i];
        p.last = outcome;
        p.strikes = p.strikes.saturating_add(1);
        if p.strikes >= self.max_strikes {
            p.out = true;
        }
    }

    fn step(&mut self, i: usize, m: Move) {
        let (dx, dy) = match m {
            Move::Stay => (0, 0),
            Move::North => (0, -1),
            Move::South => (0, 1),
            Move::East => (1, 0),
            Move::West => (-1, 0),
        };
        let p = &mut self.players[i];
        p.x = (p.x + dx).clamp(0, self.width - 1);
        p.y = (p.y + dy).clamp(0, self.height - 1);
        let at = (p.x, p.y);
        if let Some(c) = self.coins.iter().position(|&c| c == at) {
            self.coins.swap_remove(c);
            self.players[i].score += 1;
            self.place_coin();
        }
    }

    /// End a tick: a player that did not answer at all counts a strike.
    pub fn end_tick(&mut self) {
        for i in 0..self.players.len() {
            if !self.players[i].out && self.players[i].last == Outcome::Error {
                self.strike(i, Outcome::Error);
            }
        }
    }

    pub fn finished(&self) -> bool {
        self.tick >= self.ticks || self.players.iter().all(|p| p.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        let mut g = Game::new(6, 4, 10, 3, 42, 2);
        g.join(1, "a", "Rust");
        g.join(2, "b", "Go");
        g
    }

    #[test]
    fn the_seed_decides_the_coins() {
        assert_eq!(game().coins, game().coins);
        assert_eq!(game().coins.len(), 3);
        assert_ne!(Game::new(6, 4, 10, 3, 43, 2).coins, game().coins);
    }

    #[test]
    fn a_player_collects_the_coin_it_lands_on_and_one_reappears() {
        let mut g = game();
        let (x, y) = (g.players[0].x, g.players[0].y);
        g.coins[0] = (x + 1, y);
        g.begin_tick(1);
        g.answer(0, Ok(Move::East));
        g.answer(1, Ok(Move::Stay));
        g.end_tick();
        assert_eq!(g.players[0].score, 1);
        assert_eq!(g.coins.len(), 3);
        assert!(!g.coins.contains(&(x + 1, y)));
    }

    #[test]
    fn moves_stay_on_the_board() {
        let mut g = game();
        for _ in 0..20 {
            g.answer(0, Ok(Move::North));
            g.answer(0, Ok(Move::West));
        }
        assert_eq!((g.players[0].x, g.players[0].y), (0, 0));
    }

    #[test]
    fn failures_and_silence_are_strikes_and_enough_strikes_put_a_player_out() {
        let mut g = game();
        g.begin_tick(1);
        g.answer(0, Err(Outcome::Timeout));
        g.end_tick(); // b did not answer at all
        assert_eq!(g.players[0].last, Outcome::Timeout);
        assert_eq!((g.players[0].strikes, g.players[1].strikes), (1, 1));
        g.begin_tick(2);
        g.answer(0, Err(Outcome::ReadOnlyViolation));
        g.answer(1, Ok(Move::Stay));
        g.end_tick();
        assert!(g.players[0].out && !g.players[1].out);
        // An out player's answers no longer count.
        let before = (g.players[0].x, g.players[0].y);
        g.begin_tick(3);
        g.answer(0, Ok(Move::South));
        assert_eq!((g.players[0].x, g.players[0].y), before);
        assert_eq!(g.players[0].last, Outcome::Out);
        assert!(!g.finished());
    }

    #[test]
    fn a_taken_name_gets_a_suffix() {
        let mut g = game();
        g.join(3, "a", "C");
        assert_eq!(g.players[2].name, "a#2");
        assert_eq!(g.player_of(3), Some(2));
    }
}
