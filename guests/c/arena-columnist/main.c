/* arena-columnist is a well-behaved C bot for the arena demo
 * (examples/arena/arena.km): each tick it reads the State from the
 * read-only `board` region and walks to the nearest coin, along its
 * column (Y) first and then its row, the other way round from the Go
 * sweeper, so the two rarely race for the same coin by the same path. */
#include <string.h>

#include "arena_guest.h"

static const char name[] = "columnist";

static kmg_status join(kmg_call *call, const arena_rules *rules, arena_hello *result) {
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

static kmg_status think(kmg_call *call, const arena_state *state, arena_order *result) {
    const arena_player *me = NULL;
    arena_point best;
    int32_t best_distance = -1;
    (void)call;
    for (uint32_t i = 0; i < state->players.len; i++) {
        const arena_player *p = &state->players.ptr[i];
        if (p->name.len == sizeof name - 1 && memcmp(p->name.ptr, name, sizeof name - 1) == 0) {
            me = p;
            break;
        }
    }
    result->move = ARENA_MOVE_STAY;
    if (me == NULL) {
        return KMG_OK;
    }
    best = me->at;
    for (uint32_t i = 0; i < state->coins.len; i++) {
        arena_point c = state->coins.ptr[i];
        int32_t d = distance(me->at, c);
        /* Coins off the board (a broken world) are not worth a strike. */
        if (c.x < 0 || c.y < 0 || c.x >= state->width || c.y >= state->height) {
            continue;
        }
        if (best_distance < 0 || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    result->move = towards(me->at, best);
    return KMG_OK;
}

static const arena_bot_exports bot_ops = {join, think};

int kmg_init(void) { return arena_bot_export(&bot_ops) != KMG_OK; }
