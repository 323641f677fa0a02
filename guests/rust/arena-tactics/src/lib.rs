//! How the arena's Rust bots move, independent of the ABI and of the
//! generated types: head for the nearest coin (Manhattan distance, ties
//! broken by position so the game is deterministic), the longer axis first.

#![no_std]

/// A step on the grid: `(dx, dy)`, one of the four directions or `(0, 0)`.
pub type Step = (i16, i16);

/// The step from `me` toward the nearest of `coins` (`xs[i]`, `ys[i]`).
pub fn toward_nearest(me: (i16, i16), xs: &[i16], ys: &[i16]) -> Step {
    let nearest = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| ((x - me.0).abs() + (y - me.1).abs(), x, y))
        .min();
    let Some((_, x, y)) = nearest else {
        return (0, 0);
    };
    let (dx, dy) = (x - me.0, y - me.1);
    if dx == 0 && dy == 0 {
        (0, 0)
    } else if dx.abs() >= dy.abs() {
        (dx.signum(), 0)
    } else {
        (0, dy.signum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goes_for_the_nearest_coin_longer_axis_first() {
        assert_eq!(toward_nearest((0, 0), &[5, 1], &[5, 3]), (0, 1));
        assert_eq!(toward_nearest((4, 4), &[0], &[3]), (-1, 0));
        assert_eq!(toward_nearest((2, 2), &[2], &[2]), (0, 0));
        assert_eq!(toward_nearest((2, 2), &[], &[]), (0, 0));
    }
}
