/* arena-columnist is a well-behaved C bot for the arena demo
 * (examples/arena/arena.km): each tick it reads the State from the
 * read-only `board` region and walks to the nearest coin, along its
 * column (Y) first and then its row, the other way round from the Go
 * sweeper, so the two rarely race for the same coin by the same path. */
#include <string.h>

#include "arena_guest.h"

static const char name[] = "columnist";

static kmg_status join(kmg_call *call, arena_rules_tview rules, arena_hello *result) {
    (void)call;
    (void)rules;
    result->name = (km_text){name, sizeof name - 1};
    result->language = (km_text){"C", 1};
    return KMG_OK;
}

static int32_t distance(arena_point a, arena_point b) {
    int32_t dx = (int32_t)a.x - (int32_t)b.x, dy = (int32_t)a.y - (int32_t)b.y;
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* One step from `me` towards `target`, Y first (north is smaller Y); a
 * target on the board keeps every step on it. */
static arena_move towards(arena_point me, arena_point target) {
    if (target.y < me.y) {
        return ARENA_MOVE_NORTH;
    }
    if (target.y > me.y) {
        return ARENA_MOVE_SOUTH;
    }
    if (target.x > me.x) {
        return ARENA_MOVE_EAST;
    }
    if (target.x < me.x) {
        return ARENA_MOVE_WEST;
    }
    return ARENA_MOVE_STAY;
}

/* The state is read in place in the `board` window through a checked view
 * (the world rewrites the window every tick). */
static kmg_status think(kmg_call *call, arena_state_view state, arena_order *result) {
    arena_player_soa players = arena_state_view_players(state);
    arena_point_soa coins = arena_state_view_coins(state);
    int16_t width = arena_state_view_width(state), height = arena_state_view_height(state);
    bool found = false;
    arena_point me = {0, 0}, best;
    int32_t best_distance = -1;
    (void)call;
    for (uint32_t i = 0; i < arena_player_soa_len(players); i++) {
        arena_player_soa_item p = arena_player_soa_at(players, i);
        km_text t = arena_player_soa_item_name(p);
        if (t.len == sizeof name - 1 && memcmp(t.ptr, name, sizeof name - 1) == 0) {
            arena_player_soa_item_at_node at = arena_player_soa_item_at_(p);
            me.x = arena_player_soa_item_at_node_x(at);
            me.y = arena_player_soa_item_at_node_y(at);
            found = true;
            break;
        }
    }
    result->move = ARENA_MOVE_STAY;
    if (!found) {
        return KMG_OK;
    }
    best = me;
    for (uint32_t i = 0; i < arena_point_soa_len(coins); i++) {
        arena_point_soa_item item = arena_point_soa_at(coins, i);
        arena_point c;
        int32_t d;
        c.x = arena_point_soa_item_x(item);
        c.y = arena_point_soa_item_y(item);
        d = distance(me, c);
        /* Coins off the board (a broken world) are not worth a strike. */
        if (c.x < 0 || c.y < 0 || c.x >= width || c.y >= height) {
            continue;
        }
        if (best_distance < 0 || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    result->move = towards(me, best);
    return KMG_OK;
}

static const arena_bot_exports bot_ops = {join, think};

int kmg_init(void) { return arena_bot_export(&bot_ops) != KMG_OK; }
