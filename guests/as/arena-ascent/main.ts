// arena-ascent is an AssemblyScript bot for the arena demo
// (examples/arena/arena.km). Each tick it reads the State from the
// read-only `board` region and heads for the richest neighbourhood, not
// the nearest coin: every coin is worth itself plus half of each other
// coin within three steps of it, divided by the steps to get there, and
// coins a rival reaches first are left to it. Among equal moves it steps
// along the axis with the larger gap (Y on a tie).

export * from "karmem-as/assembly/guest-exports";
import * as guest from "karmem-as/assembly/guest";
import { Hello, Move, Order, Player, Point, Rules, State } from "../gen/arena/arena";
import { Bot } from "../gen/arena/arena_guest";

const NAME = "ascent";

function distance(a: Point, b: Point): i32 {
  return abs<i32>(<i32>a.x - <i32>b.x) + abs<i32>(<i32>a.y - <i32>b.y);
}

/** How much heading for `c` is worth from `me`; negative when a rival is
 * strictly nearer to it. */
function worth(me: Point, c: Point, players: Array<Player>, coins: Array<Point>): f64 {
  const mine = distance(me, c);
  for (let i = 0; i < players.length; i++) {
    const p = players[i];
    if (p.out || p.name == NAME) continue;
    if (distance(p.at, c) < mine) return -1;
  }
  let value = 1.0;
  for (let i = 0; i < coins.length; i++) {
    const d = distance(c, coins[i]);
    if (d > 0 && d <= 3) value += 0.5;
  }
  return value / <f64>(mine + 1);
}

/** The coin worth most (the first on a tie); null when there is none. A
 * coin every rival beats it to is still better than standing still. */
function choose(me: Point, players: Array<Player>, coins: Array<Point>): Point | null {
  let best: Point | null = null;
  let bestWorth = -2.0;
  for (let i = 0; i < coins.length; i++) {
    const w = worth(me, coins[i], players, coins);
    if (w > bestWorth) {
      best = coins[i];
      bestWorth = w;
    }
  }
  return best;
}

/** One step from `me` to `target` along the axis with the larger gap (Y
 * on a tie). North is towards smaller Y. */
function towards(me: Point, target: Point): Move {
  const dx = <i32>target.x - <i32>me.x;
  const dy = <i32>target.y - <i32>me.y;
  if (dy != 0 && abs<i32>(dy) >= abs<i32>(dx)) return dy > 0 ? Move.South : Move.North;
  if (dx != 0) return dx > 0 ? Move.East : Move.West;
  return Move.Stay;
}

class Ascent extends Bot {
  join(rules: Rules): Hello | null {
    const h = new Hello();
    h.name = NAME;
    h.language = "AssemblyScript";
    return h;
  }

  think(state: State): Order | null {
    const order = new Order();
    order.move = Move.Stay;
    let me: Point | null = null;
    for (let i = 0; i < state.players.length; i++) {
      if (state.players[i].name == NAME) me = state.players[i].at;
    }
    if (me == null) return order;
    const target = choose(me, state.players, state.coins);
    if (target != null) order.move = towards(me, target);
    return order;
  }
}

guest.register(new Ascent());
