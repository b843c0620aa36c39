/* The search of games/engine/solver/search.py and the departures of departures.py in C.
 *
 * Each function below names the Python function it mirrors; the docstrings there give the
 * argument for every shortcut. What differs is only how things are held: a position is
 * one flat struct (each column's face-down count, then its cards, as search.py's bytes),
 * the children of the positions on the line live on one stack, the transposition table
 * is an open-addressing table of keys, and the dicts of departures.py are arrays indexed
 * by card or by place. Wherever Python's iteration order can change an answer (the order
 * of the moves, of the children, of the cards joining the closure) this code keeps it. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

#define IN_CELL 64
#define NOWHERE 255
#define NEVER (1 << 30)
#define NO_CARD (-1)
#define MAXSTEPS 4096
#define MAXWAYS (NS_MAXCARDS * 8)

/* Move ordering, as search.py's _P_* (higher first). */
enum { P_RUN = 1000, P_FLIP = 100, P_EMPTIES = 40, P_BUILD = 10, P_KING = 5, P_DEAL = -1, P_BREAKS = -50 };
static const double JITTER = 15.0;

typedef struct {
    uint8_t kind, a, b, c;
} step_t;

/* search.py's Child: column c is data[start[c] .. start[c + 1]]. */
typedef struct {
    uint8_t start[NS_MAXCOLS + 1];
    uint8_t data[NS_DATA + 8]; /* 8 to spare: head() reads 8 bytes from any column */
    int8_t cells[NS_MAXCELLS];
    step_t step;
    uint8_t dealt, won;
    uint16_t removed;
    int32_t priority;
    /* With one deck, the columns by bottom card (order_by_bottom) once ``ordered``: a move
     * that empties no column and fills none keeps every bottom card, so a child inherits
     * its parent's order, and its key needs no sorting. */
    uint8_t ordered;
    uint8_t order[NS_MAXCOLS];
} pos_t;

#define COL(p, c) ((p)->data + (p)->start[c])
#define LEN(p, c) ((int)(p)->start[(c) + 1] - (int)(p)->start[c])

/* A column being changed: its bytes, where they are, and whether they may be written. */
typedef struct {
    const uint8_t *p;
    int len;
} view_t;

/* One open line of the depth-first search: search.py's ``(kids, at, mark)``. */
typedef struct {
    size_t base; /* the first kid on the kid stack */
    int count;
    int at;
    int mark;
} frame_t;

/* departures.py's Entry. */
typedef struct {
    int i, up, to_empty, none, way0, nways;
} entry_t;

typedef struct {
    int cover, low, high;
} way_t;

/* departures.py's Departures, with room for the largest position. */
typedef struct {
    int total;
    int covers[NS_MAXCARDS];
    uint8_t needed[NS_MAXCARDS];
    int missing;
    entry_t entries[NS_MAXCARDS];
    int nentries;
    way_t ways[MAXWAYS];
    int nways;
    uint8_t is_emptier[NS_MAXCARDS];
    int emptiers[NS_MAXCOLS];
    int nemptiers;
    int any_empty;
    int nplaces[52];
    int places[52][2];
    int order[NS_MAXCARDS];
    int why[NS_MAXCARDS][3];
    int nwhy[NS_MAXCARDS];
    /* _grow's own: the entries it looks at, those left, who waits on whom, its queue. */
    int list[NS_MAXCARDS];
    int left[NS_MAXCARDS];
    int wstart[NS_MAXCARDS + 1];
    int *waiting;
    size_t waiting_cap;
    int *queue;
    size_t queue_cap;
    /* one_place's memo of closures with one card held. */
    uint8_t held_done[NS_MAXCARDS];
    uint8_t held[NS_MAXCARDS][NS_MAXCARDS];
    uint8_t seen[NS_MAXCARDS];
    int todo[NS_MAXCARDS];
} dep_t;

struct ns_search {
    /* the rules */
    int ncols, ncells, mode, need, any_time, king_only, whole_ok, has_cells;
    int nreserve, nreserve_to;
    uint8_t reserve[NS_MAXRESERVE];
    uint8_t reserve_to[NS_MAXRESERVE];
    uint8_t is_reserve_col[NS_MAXCOLS];
    int nother;
    uint8_t other_cols[NS_MAXCOLS];
    int ntargets[52];
    uint8_t targets[52][4];
    int one_target, joins_safe, two_decks, strands_checked, strands_everywhere;
    int focus, jitter, settled;
    pos_t root;
    /* the run */
    int started, decided;
    int64_t nodes;
    int mti;
    /* Growing arrays, kept from one search to the next on a thread (ns_free) while small. */
    pos_t *kids;
    int32_t *rank;
    size_t nkids, kids_cap;
    frame_t *frames;
    size_t nframes, frames_cap;
    step_t *path;
    size_t npath, path_cap;
    /* the transposition table: keys one after another, and a table of (hash, offset) */
    uint8_t *keys;
    size_t keys_len, keys_cap;
    uint64_t *hashes;
    uint64_t *offsets;
    size_t table_cap, table_len;
    /* Scratch, not zeroed: everything from here on is written before it is read. */
    uint32_t mt[624]; /* Python's Mersenne Twister, set by ns_mt_set before a probe runs */
    uint8_t scratch[NS_MAXCOLS][NS_DATA + 8];
    step_t steps[MAXSTEPS];
    double sort_keys[MAXSTEPS + 1];
    dep_t dep;
};

/* --- Python's random.Random ------------------------------------------------------------ */

static uint32_t mt_next(ns_search *s)
{
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *mt = s->mt;
    if (s->mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < 623; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
        s->mti = 0;
    }
    y = mt[s->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.random(): 53 random bits. */
static double mt_random(ns_search *s)
{
    uint32_t a = mt_next(s) >> 5, b = mt_next(s) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

void ns_mt_get(const ns_search *s, uint32_t state[NS_MT_WORDS])
{
    memcpy(state, s->mt, sizeof s->mt);
    state[624] = (uint32_t)s->mti;
}

void ns_mt_set(ns_search *s, const uint32_t state[NS_MT_WORDS])
{
    memcpy(s->mt, state, sizeof s->mt);
    s->mti = state[624] > 624 ? 624 : (int)state[624];
}

/* --- growing arrays ----------------------------------------------------------------------- */

static int grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t next = *cap ? *cap : 64;
    while (next < need)
        next *= 2;
    void *moved = realloc(*items, next * size);
    if (!moved)
        return 0;
    *items = moved;
    *cap = next;
    return 1;
}

/* Copy ``n`` bytes 8 at a time (no call into the C library for a few bytes): both sides
 * have 8 bytes to spare past any column. */
static inline void copy_col(uint8_t *dst, const uint8_t *src, int n)
{
    for (int k = 0; k < n; k += 8)
        memcpy(dst + k, src + k, 8);
}

/* --- cards ------------------------------------------------------------------------------------ */

/* Whether ``cards`` are one suit's run, King down to Ace (_RUN_BYTES). */
static int is_run(const uint8_t *cards)
{
    int king = cards[0];
    if (king % 13 != 12)
        return 0;
    for (int k = 1; k < 13; k++)
        if (cards[k] != king - k)
            return 0;
    return 1;
}

/* ``col in _RUN_COLUMNS``: one run, face-up, and nothing else. */
static int is_run_column(const uint8_t *col, int len)
{
    return len == 14 && col[0] == 0 && is_run(col + 1);
}

/* ``pile in _RUN_TAILS``: a card and every lower card of its suit, in order, to the Ace. */
static int is_tail(const uint8_t *pile, int n)
{
    if (n < 1 || n != pile[0] % 13 + 1)
        return 0;
    for (int k = 1; k < n; k++)
        if (pile[k] != pile[0] - k)
            return 0;
    return 1;
}

/* --- the departures (departures.py) ------------------------------------------------------ */

/* With two decks shortcut 7 reads the order in which cards join the closure and why each
 * did, so dep_* below follow departures.py step by step, in its order. With one deck only
 * the closure itself matters: stranded_one_deck finds it on bit sets. */

/* Departures.__init__; ``free`` has bit ``card`` set for a card in the reserve or a cell. */
static void dep_build(ns_search *s, dep_t *d, const pos_t *p, uint64_t free)
{
    int offsets[NS_MAXCOLS];
    int total = 0;
    int ncols = s->ncols;
    for (int c = 0; c < ncols; c++) {
        offsets[c] = total;
        total += LEN(p, c) - 1;
    }
    d->total = total;
    memset(d->nplaces, 0, sizeof d->nplaces);
    for (int c = 0; c < ncols; c++) {
        const uint8_t *col = COL(p, c);
        int base = offsets[c], n = LEN(p, c) - 1;
        for (int j = 0; j < n; j++) {
            d->covers[base + j] = j + 1 < n ? base + j + 1 : -1;
            int card = col[1 + j];
            if (d->nplaces[card] < 2)
                d->places[card][d->nplaces[card]] = base + j;
            d->nplaces[card]++;
        }
    }
    memset(d->needed, 0, (size_t)total);
    int missing = 0;
    d->nentries = 0;
    d->nways = 0;
    int any_empty = 0;
    for (int c = 0; c < ncols; c++) {
        const uint8_t *col = COL(p, c);
        int base = offsets[c], n = LEN(p, c) - 1;
        if (!n) {
            any_empty = 1;
            continue;
        }
        int down = col[0], top = base + n;
        for (int j = n - 1; j >= 0; j--) { /* top first: the first pass settles more */
            int i = base + j, card = col[1 + j];
            int up = j < down ? i + 1 : -1;
            if (up >= 0 && !d->needed[up]) {
                d->needed[up] = 1;
                missing++;
            }
            entry_t *e = &d->entries[d->nentries];
            if (card % 13 == 12) {
                if (!j)
                    continue;
                if (!d->needed[i]) {
                    d->needed[i] = 1;
                    missing++;
                }
                /* Its run completed on it: nothing, or its Queen, or the card on it gone. */
                int done = j + 1 == n || col[2 + j] == card - 1;
                e->i = i;
                e->up = up;
                e->to_empty = 1;
                e->none = done;
                e->way0 = d->nways;
                e->nways = 0;
                if (!done) {
                    d->ways[d->nways++] = (way_t){i + 1, 0, 0};
                    e->nways = 1;
                }
                d->nentries++;
                continue;
            }
            if ((!j || col[j] != card + 1) && !d->needed[i]) {
                d->needed[i] = 1;
                missing++;
            }
            int anyway = 0, way0 = d->nways;
            for (int k = 0; k < s->ntargets[card] && !anyway; k++) {
                int t = s->targets[card][k];
                if (free >> t & 1) {
                    anyway = 1;
                    break;
                }
                int copies = d->nplaces[t] < 2 ? d->nplaces[t] : 2;
                for (int q = 0; q < copies; q++) {
                    int ti = d->places[t][q];
                    if (ti == i - 1 && j)
                        continue; /* the card it sits on */
                    int cover = d->covers[ti];
                    d->ways[d->nways++] =
                        i < ti && ti < top ? (way_t){cover, i + 1, ti + 1} : (way_t){cover, 0, 0};
                }
            }
            e->i = i;
            e->up = up;
            e->to_empty = !s->king_only;
            e->none = anyway;
            if (anyway)
                d->nways = way0;
            e->way0 = way0;
            e->nways = d->nways - way0;
            d->nentries++;
        }
    }
    d->missing = missing;
    /* A column can be emptied once one of ``emptiers`` departs: a bottom card, or the card
     * on a King at the bottom (a run completed on it). */
    memset(d->is_emptier, 0, (size_t)total);
    d->nemptiers = 0;
    for (int c = 0; c < ncols; c++) {
        int len = LEN(p, c);
        if (len == 1)
            continue;
        const uint8_t *col = COL(p, c);
        int bottom = col[1], at = -1;
        if (bottom % 13 != 12)
            at = offsets[c];
        else if (len == 2 || col[2] == bottom - 1)
            any_empty = 1;
        else
            at = offsets[c] + 1;
        if (at >= 0 && !d->is_emptier[at]) {
            d->is_emptier[at] = 1;
            d->emptiers[d->nemptiers++] = at;
        }
    }
    d->any_empty = any_empty;
}

/* _grow's state between its inner functions. */
typedef struct {
    dep_t *d;
    uint8_t *leaves;
    int *order; /* NULL: no order, no why */
    int any_empty, emptied, step;
} grow_t;

/* _grow's way_in: whether ``e``'s card may depart, with the cards that let it. */
static int way_in(const grow_t *g, const entry_t *e, int cause[3], int *ncause)
{
    const uint8_t *leaves = g->leaves;
    int n = 0;
    if (e->up >= 0) {
        if (!leaves[e->up])
            return 0;
        cause[n++] = e->up;
    }
    if (e->none) {
        *ncause = n;
        return 1;
    }
    if (e->to_empty && g->any_empty) {
        if (g->emptied >= 0)
            cause[n++] = g->emptied;
        *ncause = n;
        return 1;
    }
    for (int w = 0; w < e->nways; w++) {
        const way_t *way = &g->d->ways[e->way0 + w];
        if (way->cover >= 0 && !leaves[way->cover])
            continue;
        if (way->low == way->high) {
            if (way->cover >= 0)
                cause[n++] = way->cover;
            *ncause = n;
            return 1;
        }
        const void *found = memchr(leaves + way->low, 1, (size_t)(way->high - way->low));
        if (found) {
            if (way->cover >= 0)
                cause[n++] = way->cover;
            cause[n++] = (int)((const uint8_t *)found - leaves);
            *ncause = n;
            return 1;
        }
    }
    return 0;
}

/* _grow's join: put ``i`` in. (This core asks only for whole closures, as shortcut 7
 * needs: departures.py's ``until_needed`` is the one-deck check's, on bit sets below.) */
static void join(grow_t *g, int i, const int cause[3], int ncause)
{
    dep_t *d = g->d;
    g->leaves[i] = 1;
    if (g->order) {
        g->order[i] = g->step++;
        memcpy(d->why[i], cause, sizeof(int) * (size_t)ncause);
        d->nwhy[i] = ncause;
    }
    if (!g->any_empty && d->is_emptier[i]) {
        g->any_empty = 1;
        g->emptied = i;
    }
}

/* Departures._grow over the ``n`` entries listed in ``d->list``; 0 when out of memory. */
static int dep_grow(dep_t *d, uint8_t *leaves, int *order, int n, int any_empty)
{
    grow_t g = {d, leaves, order, any_empty, -1, 0};
    int cause[3], ncause;
    /* One pass over every card first (most can leave at once), then only the cards left,
     * each looked at again when a card it waits on joins. */
    int nleft = 0;
    for (int k = 0; k < n; k++) {
        const entry_t *e = &d->entries[d->list[k]];
        if (!way_in(&g, e, cause, &ncause))
            d->left[nleft++] = d->list[k];
        else
            join(&g, e->i, cause, ncause);
    }
    /* ``waiting``: for each place, the entries of ``left`` that wait on it, in order. */
    int total = d->total;
    memset(d->wstart, 0, sizeof(int) * (size_t)(total + 1));
    size_t items = 0;
    for (int e = 0; e < nleft; e++) {
        const entry_t *entry = &d->entries[d->left[e]];
        if (entry->up >= 0) {
            d->wstart[entry->up + 1]++;
            items++;
        }
        if (entry->none)
            continue;
        for (int w = 0; w < entry->nways; w++) {
            const way_t *way = &d->ways[entry->way0 + w];
            if (way->cover >= 0) {
                d->wstart[way->cover + 1]++;
                items++;
            }
            for (int k = way->low; k < way->high; k++)
                d->wstart[k + 1]++;
            items += (size_t)(way->high - way->low);
        }
    }
    for (int k = 0; k < total; k++)
        d->wstart[k + 1] += d->wstart[k];
    if (!grow((void **)&d->waiting, &d->waiting_cap, items + 1, sizeof(int)))
        return 0;
    if (!grow((void **)&d->queue, &d->queue_cap, items + 2 * (size_t)nleft + 1, sizeof(int)))
        return 0;
    int fill[NS_MAXCARDS];
    memcpy(fill, d->wstart, sizeof(int) * (size_t)total);
    for (int e = 0; e < nleft; e++) {
        const entry_t *entry = &d->entries[d->left[e]];
        if (entry->up >= 0)
            d->waiting[fill[entry->up]++] = e;
        if (entry->none)
            continue;
        for (int w = 0; w < entry->nways; w++) {
            const way_t *way = &d->ways[entry->way0 + w];
            if (way->cover >= 0)
                d->waiting[fill[way->cover]++] = e;
            for (int k = way->low; k < way->high; k++)
                d->waiting[fill[k]++] = e;
        }
    }
    int *queue = d->queue;
    size_t nqueue = 0;
    for (int e = 0; e < nleft; e++)
        queue[nqueue++] = e;
    while (nqueue) {
        const entry_t *entry = &d->entries[d->left[queue[--nqueue]]];
        int i = entry->i;
        if (leaves[i])
            continue;
        if (!way_in(&g, entry, cause, &ncause))
            continue;
        int emptying = !g.any_empty;
        join(&g, i, cause, ncause);
        for (int k = d->wstart[i]; k < d->wstart[i + 1]; k++)
            queue[nqueue++] = d->waiting[k];
        if (emptying && g.any_empty)
            for (int e = 0; e < nleft; e++)
                if (d->entries[d->left[e]].to_empty)
                    queue[nqueue++] = e;
    }
    return 1;
}

/* Departures.closure: the order in which each card joined, in d->order (NEVER if never). */
static int dep_closure(dep_t *d)
{
    uint8_t leaves[NS_MAXCARDS];
    for (int i = 0; i < d->total; i++)
        d->order[i] = NEVER;
    memset(d->nwhy, 0, sizeof(int) * (size_t)d->total);
    memset(leaves, 0, (size_t)d->total);
    for (int k = 0; k < d->nentries; k++)
        d->list[k] = k;
    return dep_grow(d, leaves, d->order, d->nentries, d->any_empty);
}

/* Departures.without: the least set with ``held`` never departing, into ``leaves``. */
static int dep_without(dep_t *d, int held, uint8_t *leaves)
{
    const int *order = d->order;
    int limit = order[held], n = 0;
    memset(leaves, 0, (size_t)d->total);
    for (int k = 0; k < d->nentries; k++) {
        int i = d->entries[k].i;
        if (order[i] < limit)
            leaves[i] = 1;
        else if (i != held)
            d->list[n++] = k;
    }
    int any_empty = d->any_empty;
    for (int k = 0; k < d->nemptiers && !any_empty; k++)
        if (order[d->emptiers[k]] < limit)
            any_empty = 1;
    return dep_grow(d, leaves, NULL, n, any_empty);
}

/* Departures.depends: whether ``v`` is on ``u``'s way into the closure. */
static int dep_depends(dep_t *d, int u, int v)
{
    const int *order = d->order;
    int limit = order[v], n = 0;
    memset(d->seen, 0, (size_t)d->total);
    d->todo[n++] = u;
    d->seen[u] = 1;
    while (n) {
        int x = d->todo[--n];
        for (int k = 0; k < d->nwhy[x]; k++) {
            int p = d->why[x][k];
            if (p == v)
                return 1;
            if (order[p] > limit && !d->seen[p]) {
                d->seen[p] = 1;
                d->todo[n++] = p;
            }
        }
    }
    return 0;
}

/* one_place's may_follow: false when ``u`` surely can depart before ``v``. */
static int may_follow(dep_t *d, int u, int v)
{
    return d->order[u] == NEVER || (d->order[u] > d->order[v] && dep_depends(d, u, v));
}

/* one_place's follows: whether ``u`` departs only after ``v``, if ever; -1 out of memory. */
static int follows(dep_t *d, int u, int v)
{
    if (d->order[u] == NEVER)
        return 1;
    if (!may_follow(d, u, v))
        return 0;
    if (!d->held_done[v]) {
        if (!dep_without(d, v, d->held[v]))
            return -1;
        d->held_done[v] = 1;
    }
    return !d->held[v][u];
}

/* follows (strict) or may_follow; -1 out of memory. */
static int after(dep_t *d, int u, int v, int strict)
{
    return strict ? follows(d, u, v) : may_follow(d, u, v);
}

/* one_place's after_both: whether ``c`` departs only after both ``a`` and ``b``, directly
 * or through the other one; -1 out of memory. */
static int after_both(dep_t *d, int c, int a, int b, int strict)
{
    /* after(c, a) or (after(c, b) and after(b, a)) */
    int r = after(d, c, a, strict);
    if (r == 0 && (r = after(d, c, b, strict)) > 0)
        r = after(d, b, a, strict);
    if (r <= 0)
        return r;
    /* and (after(c, b) or (after(c, a) and after(a, b))) */
    if ((r = after(d, c, b, strict)) != 0)
        return r;
    if ((r = after(d, c, a, strict)) <= 0)
        return r;
    return after(d, a, b, strict);
}

/* Departures.one_place: shortcut 7, over the whole closure in d->order; -1 out of memory. */
static int dep_one_place(dep_t *d)
{
    memset(d->held_done, 0, (size_t)d->total);
    for (int card = 0; card < 52; card++) {
        if (card % 13 == 12 || d->nplaces[card] != 2)
            continue;
        int a = d->places[card][0], b = d->places[card][1];
        if (!(d->needed[a] && d->needed[b]))
            continue;
        int copies = d->nplaces[card + 1] < 2 ? d->nplaces[card + 1] : 2;
        for (int q = 0; q < copies; q++) {
            int c = d->covers[d->places[card + 1][q]];
            if (c < 0 || c == a || c == b)
                continue;
            int r = after_both(d, c, a, b, 0);
            if (r > 0)
                r = after_both(d, c, a, b, 1);
            if (r)
                return r;
        }
    }
    return 0;
}

/* A set of places, one bit each (a position has at most NS_MAXCARDS cards in columns). */
typedef struct {
    uint64_t w[2];
} places_t;

#define HAS(set, i) ((set).w[(i) >> 6] >> ((i)&63) & 1)
#define ADD(set, i) ((set).w[(i) >> 6] |= 1ULL << ((i)&63))

/* The places low..high-1. */
static places_t span(int low, int high)
{
    places_t set = {{0, 0}};
    for (int word = 0; word < 2; word++) {
        int a = low - 64 * word, b = high - 64 * word;
        a = a < 0 ? 0 : a > 64 ? 64 : a;
        b = b < 0 ? 0 : b > 64 ? 64 : b;
        if (b > a)
            set.w[word] = (b - a == 64 ? ~0ULL : ((1ULL << (b - a)) - 1)) << a;
    }
    return set;
}

/* Shortcut 6 with one deck: whether a needed card lies outside the least set closed
 * under departures.py's conditions. Only that set matters here (not the order in which
 * cards join it, which shortcut 7 reads), and a set has one least fixed point, so it is
 * found by passes over the cards until one adds nothing: the same answer as
 * Departures.closure, with bit sets in place of its lists. */
static int stranded_one_deck(ns_search *s, const pos_t *p, uint64_t free)
{
    int ncols = s->ncols;
    int place[52]; /* each card's place, or -1 */
    int8_t cover_of[NS_MAXCARDS]; /* the card on each place, or -1 */
    int offsets[NS_MAXCOLS + 1];
    int total = 0;
    for (int card = 0; card < 52; card++)
        place[card] = -1;
    for (int c = 0; c < ncols; c++) {
        offsets[c] = total;
        const uint8_t *col = COL(p, c);
        int n = LEN(p, c) - 1;
        for (int j = 0; j < n; j++) {
            place[col[1 + j]] = total + j;
            cover_of[total + j] = (int8_t)(j + 1 < n ? total + j + 1 : -1);
        }
        total += n;
    }
    offsets[ncols] = total;
    /* What each card's departure needs: ``up`` gone, and one of its ways (``cover`` gone,
     * or nothing on the copy; and some place of ``between`` gone when there is one), or an
     * empty column for ``to_empty``, or nothing for ``none``. Small, so that a call
     * touches little memory. */
    struct {
        uint8_t i, to_empty, none, nways;
        int8_t up;
        uint16_t way0;
    } entry[NS_MAXCARDS];
    struct {
        int8_t cover;
        int16_t between; /* an index into ``spans``, or -1 */
    } way[NS_MAXCARDS * 4];
    places_t spans[NS_MAXCARDS * 4];
    int nentries = 0, nways = 0, nspans = 0;
    places_t needed = {{0, 0}}, emptiers = {{0, 0}};
    int any_empty = 0;
    for (int c = 0; c < ncols; c++) {
        const uint8_t *col = COL(p, c);
        int base = offsets[c], n = LEN(p, c) - 1;
        if (!n) {
            any_empty = 1;
            continue;
        }
        int down = col[0], top = base + n;
        for (int j = n - 1; j >= 0; j--) {
            int i = base + j, card = col[1 + j];
            int up = j < down ? i + 1 : -1;
            if (up >= 0)
                ADD(needed, up);
            entry[nentries].i = (uint8_t)i;
            entry[nentries].up = (int8_t)up;
            entry[nentries].way0 = (uint16_t)nways;
            if (card % 13 == 12) {
                if (!j)
                    continue;
                ADD(needed, i);
                int done = j + 1 == n || col[2 + j] == card - 1;
                entry[nentries].to_empty = 1;
                entry[nentries].none = (uint8_t)done;
                entry[nentries].nways = done ? 0 : 1;
                if (!done) {
                    way[nways].cover = (int8_t)(i + 1);
                    way[nways++].between = -1;
                }
                nentries++;
                continue;
            }
            if (!j || col[j] != card + 1)
                ADD(needed, i);
            int none = 0, way0 = nways, ntargets = s->ntargets[card];
            const uint8_t *targets = s->targets[card];
            for (int k = 0; k < ntargets; k++) {
                int t = targets[k];
                if (free >> t & 1) {
                    none = 1;
                    break;
                }
                int ti = place[t];
                if (ti < 0 || (ti == i - 1 && j))
                    continue;
                way[nways].cover = cover_of[ti];
                way[nways].between = -1;
                if (i < ti && ti < top) {
                    spans[nspans] = span(i + 1, ti + 1);
                    way[nways].between = (int16_t)nspans++;
                }
                nways++;
            }
            if (none)
                nways = way0;
            entry[nentries].to_empty = !s->king_only;
            entry[nentries].none = (uint8_t)none;
            entry[nentries].nways = (uint8_t)(nways - way0);
            nentries++;
        }
    }
    if (!needed.w[0] && !needed.w[1])
        return 0;
    for (int c = 0; c < ncols; c++) {
        int len = LEN(p, c);
        if (len == 1)
            continue;
        const uint8_t *col = COL(p, c);
        int bottom = col[1];
        if (bottom % 13 != 12)
            ADD(emptiers, offsets[c]);
        else if (len == 2 || col[2] == bottom - 1)
            any_empty = 1;
        else
            ADD(emptiers, offsets[c] + 1);
    }
    /* The cards not in yet, looked at again after each pass that let one in. */
    int pending[NS_MAXCARDS], npending = nentries;
    for (int e = 0; e < nentries; e++)
        pending[e] = e;
    places_t leaves = {{0, 0}};
    for (;;) {
        int kept = 0;
        for (int k = 0; k < npending; k++) {
            int e = pending[k];
            int ok = entry[e].up < 0 || HAS(leaves, entry[e].up);
            if (ok && !entry[e].none && !(entry[e].to_empty && any_empty)) {
                ok = 0;
                for (int w = entry[e].way0; !ok && w < entry[e].way0 + entry[e].nways; w++) {
                    int cover = way[w].cover;
                    if (cover >= 0 && !HAS(leaves, cover))
                        continue;
                    int b = way[w].between;
                    ok = b < 0 || (leaves.w[0] & spans[b].w[0]) || (leaves.w[1] & spans[b].w[1]);
                }
            }
            if (!ok) {
                pending[kept++] = e;
                continue;
            }
            ADD(leaves, entry[e].i);
            if (HAS(emptiers, entry[e].i))
                any_empty = 1;
        }
        if (!(needed.w[0] & ~leaves.w[0]) && !(needed.w[1] & ~leaves.w[1]))
            return 0;
        if (kept == npending)
            return 1;
        npending = kept;
    }
}

/* lost_as_it_stands: shortcut 6, and with two decks 7; -1 out of memory. */
static int stranded(ns_search *s, const pos_t *p)
{
    uint64_t free = 0;
    if (!p->dealt)
        for (int k = 0; k < s->nreserve; k++)
            free |= 1ULL << s->reserve[k];
    for (int n = 0; n < s->ncells; n++)
        if (p->cells[n] >= 0)
            free |= 1ULL << p->cells[n];
    if (!s->two_decks)
        return stranded_one_deck(s, p, free);
    dep_t *d = &s->dep;
    dep_build(s, d, p, free);
    if (!d->missing)
        return 0;
    if (!dep_closure(d))
        return -1;
    for (int i = 0; i < d->total; i++)
        if (d->needed[i] && d->order[i] == NEVER)
            return 1;
    return dep_one_place(d);
}

/* --- effects ---------------------------------------------------------------------------- */

/* A writable copy of column ``c`` in scratch, if it is not one already. */
static uint8_t *writable(ns_search *s, view_t *v, int c)
{
    uint8_t *mine = s->scratch[c];
    if (v->p != mine) {
        copy_col(mine, v->p, v->len);
        v->p = mine;
    }
    return mine;
}

/* Search.settle on one column: how many runs left it. */
static int settle_col(ns_search *s, view_t *v, int c)
{
    int runs = 0;
    while (v->len - 1 - v->p[0] >= 13 && v->p[v->len - 1] % 13 == 0) {
        if (!is_run(v->p + v->len - 13))
            break;
        v->len -= 13;
        runs++;
        int down = v->p[0];
        if (down && v->len - 1 == down)
            writable(s, v, c)[0] = (uint8_t)(down - 1);
    }
    return runs;
}

static int settle_all(ns_search *s, view_t *v)
{
    int runs = 0;
    for (int c = 0; c < s->ncols; c++)
        runs += settle_col(s, &v[c], c);
    return runs;
}

/* Search.won */
static int is_won(const ns_search *s, const view_t *v, int removed)
{
    if (s->mode != NS_STAY)
        return removed >= s->need;
    for (int c = 0; c < s->ncols; c++) {
        if (v[c].len == 1)
            continue;
        if (v[c].len != 14 || v[c].p[0] || !is_run(v[c].p + 1))
            return 0;
    }
    return 1;
}

static void views_of(const ns_search *s, const pos_t *p, view_t *v)
{
    for (int c = 0; c < s->ncols; c++) {
        v[c].p = COL(p, c);
        v[c].len = LEN(p, c);
    }
}

static void pack(const ns_search *s, pos_t *out, const view_t *v)
{
    int at = 0;
    for (int c = 0; c < s->ncols; c++) {
        out->start[c] = (uint8_t)at;
        copy_col(out->data + at, v[c].p, v[c].len);
        at += v[c].len;
    }
    out->start[s->ncols] = (uint8_t)at;
}

/* Search.play: the child after ``step``. */
static void play(ns_search *s, const pos_t *node, step_t step, pos_t *child)
{
    view_t v[NS_MAXCOLS];
    views_of(s, node, v);
    int priority, t, a = step.a, b = step.b;
    const uint8_t *pile;
    int npile;
    uint8_t cell_pile[8] = {0};
    memcpy(child->cells, node->cells, sizeof child->cells);
    if (step.kind == 0) {
        t = step.c;
        const uint8_t *src = COL(node, a);
        int srclen = LEN(node, a);
        pile = src + 1 + b;
        npile = srclen - 1 - b;
        if (!b) {
            v[a].len = 1;
            priority = P_EMPTIES;
        } else if (b == src[0]) {
            uint8_t *rest = s->scratch[a];
            rest[0] = (uint8_t)(b - 1);
            memcpy(rest + 1, src + 1, (size_t)b);
            v[a].p = rest;
            v[a].len = 1 + b;
            priority = P_FLIP;
        } else {
            v[a].len = 1 + b;
            int low = pile[0];
            priority = src[b] == low + 1 && low % 13 != 12 ? P_BREAKS : 0;
        }
        int destlen = LEN(node, t);
        if (destlen > 1) {
            if (COL(node, t)[destlen - 1] / 13 == pile[0] / 13)
                priority += P_BUILD;
        } else {
            priority += P_KING;
        }
    } else {
        cell_pile[0] = (uint8_t)node->cells[a];
        pile = cell_pile;
        npile = 1;
        t = b;
        child->cells[a] = NO_CARD;
        priority = P_EMPTIES;
    }
    uint8_t *landed = s->scratch[t];
    copy_col(landed, COL(node, t), LEN(node, t));
    copy_col(landed + LEN(node, t), pile, npile);
    v[t].p = landed;
    v[t].len = LEN(node, t) + npile;
    int runs = 0;
    int mode = s->mode;
    if (mode == NS_DESTINATION) {
        /* Only a column that ends in an Ace over 13 face-up cards can lose a run. */
        if (landed[v[t].len - 1] % 13 == 0 && v[t].len - 1 - landed[0] >= 13)
            runs = settle_col(s, &v[t], t);
    } else if (mode == NS_ALL && !s->settled) {
        runs = settle_all(s, v);
    } else if (mode == NS_ALL) {
        if (landed[v[t].len - 1] % 13 == 0 && v[t].len - 1 - landed[0] >= 13)
            runs = settle_col(s, &v[t], t);
        if (step.kind == 0) {
            const uint8_t *rest = v[a].p;
            if (rest[v[a].len - 1] % 13 == 0 && v[a].len - 1 - rest[0] >= 13)
                runs += settle_col(s, &v[a], a);
        }
    }
    int removed = node->removed + runs;
    if (runs)
        priority += runs * P_RUN;
    child->won = (uint8_t)(mode != NS_STAY ? removed >= s->need : is_won(s, v, removed));
    pack(s, child, v);
    child->ordered = node->ordered && !runs && v[t].len - npile > 1 && (step.kind || b);
    if (child->ordered)
        memcpy(child->order, node->order, sizeof child->order);
    child->step = step;
    child->dealt = node->dealt;
    child->removed = (uint16_t)removed;
    child->priority = priority;
}

/* Search.deal */
static void deal(ns_search *s, const pos_t *node, pos_t *child)
{
    view_t v[NS_MAXCOLS];
    views_of(s, node, v);
    for (int k = 0; k < s->nreserve; k++) {
        int c = s->reserve_to[k];
        uint8_t *col = writable(s, &v[c], c);
        col[v[c].len++] = s->reserve[k];
    }
    int runs = 0;
    if (s->mode == NS_DESTINATION)
        for (int k = 0; k < s->nreserve_to; k++)
            runs += settle_col(s, &v[s->reserve_to[k]], s->reserve_to[k]);
    else if (s->mode == NS_ALL)
        runs = settle_all(s, v);
    int removed = node->removed + runs;
    pack(s, child, v);
    memcpy(child->cells, node->cells, sizeof child->cells);
    child->step = (step_t){2, 0, 0, 0};
    child->ordered = 0;
    child->dealt = 1;
    child->removed = (uint16_t)removed;
    child->won = (uint8_t)is_won(s, v, removed);
    child->priority = P_DEAL + runs * P_RUN;
}

/* --- successors ------------------------------------------------------------------------- */

/* Search.focused: a focused probe's moves, filtered in place. */
static int focused(const ns_search *s, const pos_t *p, step_t *steps, int n)
{
    int up[52];
    for (int k = 0; k < 52; k++)
        up[k] = -1;
    for (int c = 0; c < s->ncols; c++) {
        const uint8_t *col = COL(p, c);
        for (int j = 1 + col[0]; j < LEN(p, c); j++)
            up[col[j]] = c;
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
        step_t st = steps[k];
        if (st.kind == 0) {
            const uint8_t *src = COL(p, st.a), *dest = COL(p, st.c);
            int destlen = LEN(p, st.c), i = st.b, card = src[1 + i];
            if (destlen > 1 && dest[destlen - 1] != card + 1 && i != src[0] && i) {
                int under = src[i];
                int where = under % 13 ? up[under - 1] : -1;
                if (where < 0)
                    where = st.a;
                if (!(under % 13 && where != st.a))
                    continue;
            }
        }
        steps[kept++] = st;
    }
    return kept;
}

#define PUSH(k_, a_, b_, c_) (steps[n++] = (step_t){(uint8_t)(k_), (uint8_t)(a_), (uint8_t)(b_), (uint8_t)(c_)})

/* Search.moves (the general scan): the moves worth searching, and whether any counts. */
static int general_moves(ns_search *s, const pos_t *p, int *progress)
{
    step_t *steps = s->steps;
    int n = 0, prog = 0;
    int8_t tops[52][2];
    uint8_t ntops[52];
    memset(ntops, 0, sizeof ntops);
    int empties[NS_MAXCOLS + 1], nempties = 0, nreserve_empty = 0, empty_other = -1;
    int before_deal = !p->dealt && s->nreserve_to;
    for (int c = 0; c < s->ncols; c++) {
        int len = LEN(p, c);
        if (len > 1) {
            int top = COL(p, c)[len - 1];
            if (ntops[top] < 2)
                tops[top][ntops[top]++] = (int8_t)c;
        } else if (before_deal && s->is_reserve_col[c]) {
            empties[nreserve_empty++] = c;
        } else if (empty_other < 0) {
            empty_other = c;
        }
    }
    nempties = nreserve_empty;
    if (empty_other >= 0)
        empties[nempties++] = empty_other;
    int king_only = s->king_only;
    for (int src = 0; src < s->ncols; src++) {
        const uint8_t *col = COL(p, src);
        int length = LEN(p, src) - 1;
        for (int i = col[0]; i < length; i++) {
            int card = col[1 + i];
            for (int k = 0; k < s->ntargets[card]; k++) {
                int target = s->targets[card][k];
                for (int q = 0; q < ntops[target]; q++) {
                    int t = tops[target][q];
                    if (t != src) {
                        PUSH(0, src, i, t);
                        prog = 1;
                    }
                }
            }
            if (nempties && (!king_only || card % 13 == 12)) {
                if (i) {
                    for (int e = 0; e < nempties; e++)
                        PUSH(0, src, i, empties[e]);
                    prog = 1;
                } else if (s->whole_ok && s->mode == NS_DESTINATION && is_run_column(col, length + 1)) {
                    /* A whole column that is one run: the move takes it off the table. */
                    PUSH(0, src, i, empties[0]);
                    prog = 1;
                } else if (s->whole_ok && before_deal) {
                    /* A whole column: only where it changes the reserve's landing. */
                    for (int e = 0; e < nreserve_empty; e++)
                        if (empties[e] != src)
                            PUSH(0, src, i, empties[e]);
                    if (s->is_reserve_col[src] && empty_other >= 0)
                        PUSH(0, src, i, empty_other);
                }
            }
        }
    }
    for (int cell = 0; cell < s->ncells; cell++) {
        int card = p->cells[cell];
        if (card < 0)
            continue;
        for (int k = 0; k < s->ntargets[card]; k++) {
            int target = s->targets[card][k];
            for (int q = 0; q < ntops[target]; q++) {
                PUSH(1, cell, tops[target][q], 0);
                prog = 1;
            }
        }
        if (nempties && (!king_only || card % 13 == 12)) {
            for (int e = 0; e < nempties; e++)
                PUSH(1, cell, empties[e], 0);
            prog = 1;
        }
    }
    if (s->focus)
        n = focused(s, p, steps, n);
    *progress = prog;
    return n;
}

/* Search.one_target_moves: one deck, same suit; each card's one place found from where
 * each card lies. */
static int one_target_moves(ns_search *s, const pos_t *p, int *progress)
{
    step_t *steps = s->steps;
    int n = 0;
    /* Where each face-up card is: a face-down card can neither move nor be built on, so
     * to this function it is as good as nowhere (search.py finds it, then drops it). */
    uint8_t where[52], index[52];
    memset(where, NOWHERE, sizeof where);
    for (int c = 0; c < s->ncols; c++) {
        const uint8_t *col = COL(p, c);
        int len = LEN(p, c);
        for (int j = 1 + col[0]; j < len; j++) {
            int card = col[j];
            where[card] = (uint8_t)c;
            index[card] = (uint8_t)(j - 1);
        }
    }
    for (int cell = 0; cell < s->ncells; cell++)
        if (p->cells[cell] >= 0)
            where[p->cells[cell]] = (uint8_t)(IN_CELL + cell);
    int before_deal = !p->dealt && s->nreserve_to;
    int empties[NS_MAXCOLS + 1], nreserve_empty = 0, empty_other = -1;
    for (int t = 0; t < s->ncols; t++) {
        int len = LEN(p, t);
        if (len > 1) {
            int top = COL(p, t)[len - 1];
            if (top % 13) {
                int c = where[top - 1];
                if (c < IN_CELL) {
                    if (c != t)
                        PUSH(0, c, index[top - 1], t);
                } else if (c != NOWHERE) {
                    PUSH(1, c - IN_CELL, t, 0);
                }
            }
        } else if (before_deal && s->is_reserve_col[t]) {
            empties[nreserve_empty++] = t;
        } else if (empty_other < 0) {
            empty_other = t;
        }
    }
    int prog = n > 0;
    if (empty_other >= 0 || nreserve_empty) {
        int nempties = nreserve_empty;
        if (empty_other >= 0)
            empties[nempties++] = empty_other;
        /* The cards that may go into an empty column: (column, index), or (IN_CELL + cell,
         * 0); in the order of the Kings, or of the columns in wasp. */
        int mc[NS_MAXCARDS + NS_MAXCELLS], mi[NS_MAXCARDS + NS_MAXCELLS], nmovers = 0;
        if (s->king_only) {
            static const int kings[4] = {12, 25, 38, 51};
            for (int k = 0; k < 4; k++) {
                int c = where[kings[k]];
                if (c < IN_CELL) {
                    mc[nmovers] = c;
                    mi[nmovers++] = index[kings[k]];
                } else if (c != NOWHERE) {
                    mc[nmovers] = c;
                    mi[nmovers++] = 0;
                }
            }
        } else {
            for (int c = 0; c < s->ncols; c++)
                for (int i = COL(p, c)[0]; i < LEN(p, c) - 1; i++) {
                    mc[nmovers] = c;
                    mi[nmovers++] = i;
                }
            for (int cell = 0; cell < s->ncells; cell++)
                if (p->cells[cell] >= 0) {
                    mc[nmovers] = IN_CELL + cell;
                    mi[nmovers++] = 0;
                }
        }
        for (int m = 0; m < nmovers; m++) {
            int c = mc[m], i = mi[m];
            if (c >= IN_CELL) {
                for (int e = 0; e < nempties; e++)
                    PUSH(1, c - IN_CELL, empties[e], 0);
                prog = 1;
                continue;
            }
            const uint8_t *col = COL(p, c);
            if (i) {
                for (int e = 0; e < nempties; e++)
                    PUSH(0, c, i, empties[e]);
                prog = 1;
            } else if (s->whole_ok && s->mode == NS_DESTINATION && is_run_column(col, LEN(p, c))) {
                PUSH(0, c, 0, empties[0]);
                prog = 1;
            } else if (s->whole_ok && before_deal) {
                for (int e = 0; e < nreserve_empty; e++)
                    if (empties[e] != c)
                        PUSH(0, c, 0, empties[e]);
                if (s->is_reserve_col[c] && empty_other >= 0)
                    PUSH(0, c, 0, empty_other);
            }
        }
    }
    if (!s->king_only && n > 1) {
        /* Search.moves' order (by source, a build before the empty columns), so that both
         * search alike: a stable sort, as Python's. */
        int key[MAXSTEPS];
        for (int k = 0; k < n; k++) {
            step_t st = steps[k];
            int dest = st.kind == 0 ? st.c : st.b;
            key[k] = st.kind << 24 | st.a << 16 | (st.kind == 0 ? st.b : 0) << 8 | (LEN(p, dest) == 1);
        }
        for (int k = 1; k < n; k++) {
            step_t st = steps[k];
            int kk = key[k], j = k - 1;
            while (j >= 0 && key[j] > kk) {
                key[j + 1] = key[j];
                steps[j + 1] = steps[j];
                j--;
            }
            key[j + 1] = kk;
            steps[j + 1] = st;
        }
    }
    *progress = prog;
    return n;
}

/* Search.anchored */
static int anchored(const uint8_t *col, int len)
{
    int down = col[0];
    for (int j = 2 + down; j < len; j++) {
        int card = col[j];
        if (card % 13 == 12 || col[j - 1] != card + 1)
            return 0;
    }
    int low = col[1 + down];
    if (low % 13 == 12)
        return 1;
    for (int j = 1; j < 1 + down; j++)
        if (col[j] == low + 1)
            return 1;
    return 0;
}

/* Room on the kid stack for ``n`` more; 0 when out of memory. */
static int kids_room(ns_search *s, size_t n)
{
    size_t need = s->nkids + n, cap = s->kids_cap;
    if (!grow((void **)&s->kids, &cap, need, sizeof(pos_t)))
        return 0;
    if (cap != s->kids_cap) {
        size_t rank_cap = s->kids_cap;
        if (!grow((void **)&s->rank, &rank_cap, cap, sizeof(int32_t)))
            return 0;
        s->kids_cap = cap;
    }
    return 1;
}

/* Search.children: push a frame of every successor worth searching, most promising first;
 * 0 when out of memory. ``node`` must not lie on the kid stack. */
static int children(ns_search *s, const pos_t *node, int mark)
{
    int progress;
    int n = s->one_target ? one_target_moves(s, node, &progress) : general_moves(s, node, &progress);
    if (!kids_room(s, (size_t)n + 1))
        return 0;
    if (!grow((void **)&s->frames, &s->frames_cap, s->nframes + 1, sizeof(frame_t)))
        return 0;
    size_t base = s->nkids;
    pos_t *kids = s->kids + base;
    int count = 0;
    if (s->joins_safe && (node->dealt || !s->any_time)) {
        for (int k = 0; k < n; k++) {
            step_t st = s->steps[k];
            if (st.kind == 1) {
                if (LEN(node, st.b) > 1) {
                    play(s, node, st, &kids[0]);
                    count = 1;
                    break;
                }
                continue;
            }
            int destlen = LEN(node, st.c);
            const uint8_t *src = COL(node, st.a);
            if (destlen > 1 && (anchored(COL(node, st.c), destlen) ||
                                is_tail(src + 1 + st.b, LEN(node, st.a) - 1 - st.b))) {
                play(s, node, st, &kids[0]);
                count = 1;
                break;
            }
        }
        if (count) {
            s->rank[base] = 0;
            goto push;
        }
    }
    for (int k = 0; k < n; k++)
        play(s, node, s->steps[k], &kids[count++]);
    if (!node->dealt && s->nreserve && (s->any_time || !progress)) {
        deal(s, node, &kids[count]);
        int lost = 0;
        if (s->strands_checked && !s->strands_everywhere) {
            lost = stranded(s, &kids[count]);
            if (lost < 0)
                return 0;
        }
        if (!lost)
            count++;
    }
    /* A stable sort, highest first, as list.sort(reverse=True); a probe's key gets its
     * random part in the order of the kids, as Python's key function does. */
    int32_t *rank = s->rank + base;
    if (s->jitter) {
        double *keys = s->sort_keys;
        for (int k = 0; k < count; k++) {
            double noise = mt_random(s);
            keys[k] = (double)kids[k].priority + noise * JITTER;
        }
        for (int k = 0; k < count; k++) {
            int j = k - 1;
            while (j >= 0 && keys[rank[j]] < keys[k]) {
                rank[j + 1] = rank[j];
                j--;
            }
            rank[j + 1] = k;
        }
    } else {
        for (int k = 0; k < count; k++) {
            int j = k - 1, prio = kids[k].priority;
            while (j >= 0 && kids[rank[j]].priority < prio) {
                rank[j + 1] = rank[j];
                j--;
            }
            rank[j + 1] = k;
        }
    }
push:
    s->nkids = base + (size_t)count;
    s->frames[s->nframes++] = (frame_t){base, count, 0, mark};
    return 1;
}

/* --- the transposition table ------------------------------------------------------------ */

static int cmp_cols(const pos_t *p, int x, int y)
{
    int lx = LEN(p, x), ly = LEN(p, y);
    int r = memcmp(COL(p, x), COL(p, y), (size_t)(lx < ly ? lx : ly));
    return r ? r : lx - ly;
}

/* A column's first 8 bytes, big-endian, zero past its end: ordered as the columns are
 * (a column's bytes compare as a string), with ties only between columns that share them. */
static uint64_t head(const pos_t *p, int c)
{
    uint64_t v;
    int len = LEN(p, c);
    memcpy(&v, COL(p, c), 8); /* data has 8 bytes to spare */
    v = __builtin_bswap64(v);
    return len >= 8 ? v : v & ~(~0ULL >> (8 * len));
}

/* Sort columns as strings: by their heads, then (rarely) by all of their bytes. */
static void sort_cols(const pos_t *p, uint8_t *cols, int n)
{
    uint64_t heads[NS_MAXCOLS];
    for (int k = 0; k < n; k++)
        heads[k] = head(p, cols[k]);
    for (int k = 1; k < n; k++) {
        uint8_t c = cols[k];
        uint64_t v = heads[k];
        int j = k - 1;
        while (j >= 0 && (heads[j] > v || (heads[j] == v && cmp_cols(p, cols[j], c) > 0))) {
            cols[j + 1] = cols[j];
            heads[j + 1] = heads[j];
            j--;
        }
        cols[j + 1] = c;
        heads[j + 1] = v;
    }
}

/* With one deck, one order of columns that is the same for equal multisets of columns,
 * without comparing any: the columns by their bottom card (no two share one), then the
 * empty ones (all alike). */
static void order_by_bottom(const pos_t *p, uint8_t *cols, int n)
{
    uint64_t bottoms = 0;
    uint8_t at[52];
    uint8_t empty[NS_MAXCOLS];
    int nempty = 0;
    for (int k = 0; k < n; k++) {
        int c = cols[k];
        if (LEN(p, c) > 1) {
            int card = COL(p, c)[1];
            bottoms |= 1ULL << card;
            at[card] = (uint8_t)c;
        } else {
            empty[nempty++] = (uint8_t)c;
        }
    }
    int k = 0;
    while (bottoms) {
        cols[k++] = at[__builtin_ctzll(bottoms)];
        bottoms &= bottoms - 1;
    }
    memcpy(cols + k, empty, (size_t)nempty);
}

/* Search.key: equal keys, equal futures (shortcut 1). Encoded otherwise than in Python but
 * equal exactly when Python's keys are: the reserve's columns in order while the reserve is
 * undealt, then the other columns in an order that depends only on which columns there are
 * (sorted, or with one deck by their bottom cards), each with its length; then the cells,
 * sorted. */
static int make_key(const ns_search *s, pos_t *p, uint8_t *out)
{
    uint8_t order[NS_MAXCOLS];
    int n = 0, at = 0;
    int dealt = p->dealt || !s->nreserve_to;
    out[at++] = (uint8_t)!dealt;
    if (!dealt)
        for (int k = 0; k < s->nreserve_to; k++)
            order[n++] = s->reserve_to[k];
    if (s->two_decks) {
        int first = n;
        for (int c = 0; c < s->ncols; c++)
            if (dealt || !s->is_reserve_col[c])
                order[n++] = (uint8_t)c;
        sort_cols(p, order + first, n - first);
    } else {
        if (!p->ordered) {
            for (int c = 0; c < s->ncols; c++)
                p->order[c] = (uint8_t)c;
            order_by_bottom(p, p->order, s->ncols);
            p->ordered = 1;
        }
        /* The other columns in the order of all: ordered as they would be alone. */
        for (int k = 0; k < s->ncols; k++)
            if (dealt || !s->is_reserve_col[p->order[k]])
                order[n++] = p->order[k];
    }
    for (int k = 0; k < n; k++) {
        int len = LEN(p, order[k]);
        out[at++] = (uint8_t)len;
        copy_col(out + at, COL(p, order[k]), len);
        at += len;
    }
    if (s->has_cells) {
        int cells[NS_MAXCELLS], m = 0;
        for (int k = 0; k < s->ncells; k++) {
            int card = p->cells[k];
            if (card < 0)
                continue;
            int j = m - 1;
            while (j >= 0 && cells[j] > card) {
                cells[j + 1] = cells[j];
                j--;
            }
            cells[j + 1] = card;
            m++;
        }
        out[at++] = 0xfc;
        for (int k = 0; k < m; k++)
            out[at++] = (uint8_t)cells[k];
    }
    return at;
}

static uint64_t hash_key(const uint8_t *key, int len)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)len;
    int k = 0;
    for (; k + 8 <= len; k += 8) {
        uint64_t w;
        memcpy(&w, key + k, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, key + k, (size_t)(len - k));
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
    return h | 1; /* 0 marks an empty slot */
}

static int table_grow(ns_search *s)
{
    size_t cap = s->table_cap ? s->table_cap * 2 : 1 << 8;
    uint64_t *hashes = calloc(cap, sizeof(uint64_t));
    uint64_t *offsets = malloc(cap * sizeof(uint64_t));
    if (!hashes || !offsets) {
        free(hashes);
        free(offsets);
        return 0;
    }
    for (size_t k = 0; k < s->table_cap; k++) {
        uint64_t h = s->hashes[k];
        if (!h)
            continue;
        size_t at = (size_t)h & (cap - 1);
        while (hashes[at])
            at = (at + 1) & (cap - 1);
        hashes[at] = h;
        offsets[at] = s->offsets[k];
    }
    free(s->hashes);
    free(s->offsets);
    s->hashes = hashes;
    s->offsets = offsets;
    s->table_cap = cap;
    return 1;
}

/* The slot of ``key``: found (1) or where it would go (0). */
static int table_find(const ns_search *s, const uint8_t *key, int len, uint64_t h, size_t *slot)
{
    size_t mask = s->table_cap - 1, at = (size_t)h & mask;
    while (s->hashes[at]) {
        if (s->hashes[at] == h) {
            const uint8_t *known = s->keys + s->offsets[at];
            if (known[0] == len && !memcmp(known + 1, key, (size_t)len)) {
                *slot = at;
                return 1;
            }
        }
        at = (at + 1) & mask;
    }
    *slot = at;
    return 0;
}

/* Add ``key`` (known to be absent) at ``slot``; 0 when out of memory. */
static int table_add(ns_search *s, const uint8_t *key, int len, uint64_t h, size_t slot)
{
    if (!grow((void **)&s->keys, &s->keys_cap, s->keys_len + (size_t)len + 1, 1))
        return 0;
    if ((s->table_len + 1) * 2 > s->table_cap) {
        if (!table_grow(s))
            return 0;
        table_find(s, key, len, h, &slot);
    }
    s->keys[s->keys_len] = (uint8_t)len;
    memcpy(s->keys + s->keys_len + 1, key, (size_t)len);
    s->hashes[slot] = h;
    s->offsets[slot] = s->keys_len;
    s->keys_len += (size_t)len + 1;
    s->table_len++;
    return 1;
}

/* --- the search ------------------------------------------------------------------------- */

static int path_push(ns_search *s, size_t at, step_t step)
{
    if (!grow((void **)&s->path, &s->path_cap, at + 1, sizeof(step_t)))
        return 0;
    s->path[at] = step;
    s->npath = at + 1;
    return 1;
}

/* Search.start: the root's own verdict, or -1 with the search set up to run; -2 out of
 * memory. */
static int start(ns_search *s)
{
    pos_t *root = &s->root;
    s->npath = 0;
    s->nodes = 1;
    if (root->won)
        return NS_WON;
    if (s->strands_checked) {
        int lost = stranded(s, root);
        if (lost < 0)
            return -2;
        if (lost)
            return NS_LOST;
    }
    uint8_t key[NS_DATA * 2 + NS_MAXCELLS + 8];
    int len = make_key(s, root, key);
    uint64_t h = hash_key(key, len);
    size_t slot;
    if (!s->table_cap && !table_grow(s))
        return -2;
    table_find(s, key, len, h, &slot);
    if (!table_add(s, key, len, h, slot))
        return -2;
    return children(s, root, 0) ? -1 : -2;
}

int ns_run(ns_search *s, int64_t budget)
{
    if (s->decided >= 0)
        return s->decided;
    if (!s->started) {
        s->started = 1;
        int r = start(s);
        if (r == -2)
            return NS_NOMEMORY;
        if (r >= 0)
            return s->decided = r;
    }
    int64_t nodes = s->nodes;
    uint8_t key[NS_DATA * 2 + NS_MAXCELLS + 8];
    pos_t node;
    while (s->nframes) {
        frame_t *f = &s->frames[s->nframes - 1];
        if (f->at == f->count) {
            s->nkids = f->base;
            s->nframes--;
            continue;
        }
        pos_t *child = &s->kids[f->base + (size_t)s->rank[f->base + (size_t)f->at]];
        int len = make_key(s, child, key);
        uint64_t h = hash_key(key, len);
        size_t slot;
        if (table_find(s, key, len, h, &slot)) {
            f->at++;
            continue;
        }
        if (nodes >= budget) {
            s->nodes = nodes;
            return NS_UNKNOWN;
        }
        f->at++;
        int mark = f->mark;
        if (!table_add(s, key, len, h, slot) || !path_push(s, (size_t)mark, child->step))
            return NS_NOMEMORY;
        nodes++;
        if (child->won) {
            s->nodes = nodes;
            return s->decided = NS_WON;
        }
        if (s->strands_everywhere) {
            int lost = stranded(s, child);
            if (lost < 0)
                return NS_NOMEMORY;
            if (lost)
                continue; /* lost (shortcut 6) */
        }
        node = *child; /* the kid stack may move as it grows */
        if (!children(s, &node, mark + 1))
            return NS_NOMEMORY;
    }
    s->nodes = nodes;
    return s->decided = NS_LOST;
}

int64_t ns_nodes(const ns_search *s)
{
    return s->nodes;
}

size_t ns_line(const ns_search *s, const uint8_t **steps)
{
    *steps = (const uint8_t *)s->path;
    return s->decided == NS_WON ? s->npath : 0;
}

/* --- making and freeing ----------------------------------------------------------------- */

/* A thread's last search, freed and ready for its next: ns_new starts from it. */
static _Thread_local ns_search *spare;
/* What a kept search keeps at most: kids, frames (and steps of the line), key bytes, table
 * slots (some 800 KB in all). */
#define KEEP_KIDS 512
#define KEEP_FRAMES 4096
#define KEEP_KEYS (1 << 19)
#define KEEP_TABLE (1 << 13)

ns_search *ns_new(const ns_setup *u, const char **error)
{
    *error = "the position is outside the native core's limits";
    if (u->ncols < 1 || u->ncols > NS_MAXCOLS || u->ncells < 0 || u->ncells > NS_MAXCELLS ||
        u->nreserve < 0 || u->nreserve > NS_MAXRESERVE || u->nreserve_to < 0 ||
        u->nreserve_to > NS_MAXRESERVE || u->decks < 1 || u->decks > 2 || u->mode < 0 || u->mode > 2)
        return NULL;
    /* search.py zips the reserve with its columns, strictly, at the deal. */
    if (u->nreserve && u->nreserve != u->nreserve_to)
        return NULL;
    int copies[52] = {0}, total = 0;
    const uint8_t *columns[NS_MAXCOLS];
    for (int c = 0, at = 0; c < u->ncols; c++) {
        int len = u->lens[c];
        if (len < 1 || at + len > NS_DATA)
            return NULL;
        columns[c] = u->data + at;
        at += len;
        int down = columns[c][0];
        /* A column holds a face-up card unless it is empty, as the engine's always do. */
        if (len > 1 ? down >= len - 1 : down != 0)
            return NULL;
        for (int j = 1; j < len; j++) {
            if (columns[c][j] >= 52)
                return NULL;
            copies[columns[c][j]]++;
        }
        total += len - 1;
    }
    for (int k = 0; k < u->nreserve; k++) {
        if (u->reserve[k] >= 52)
            return NULL;
        copies[u->reserve[k]]++;
    }
    for (int k = 0; k < u->nreserve_to; k++)
        if (u->reserve_to[k] >= u->ncols)
            return NULL;
    for (int k = 0; k < u->ncells; k++) {
        if (u->cells[k] < -1 || u->cells[k] >= 52)
            return NULL;
        if (u->cells[k] >= 0)
            copies[u->cells[k]]++;
    }
    for (int card = 0; card < 52; card++)
        if (copies[card] > u->decks)
            return NULL;
    if (total + u->nreserve > NS_MAXCARDS || u->removed < 0 || u->removed > 8)
        return NULL;

    *error = "out of memory";
    ns_search *s = spare;
    if (s) {
        spare = NULL;
        if (s->table_len) {
            memset(s->hashes, 0, s->table_cap * sizeof(uint64_t));
            s->table_len = 0;
        }
        s->nkids = s->nframes = s->npath = s->keys_len = 0;
    } else {
        s = malloc(sizeof *s);
        if (!s)
            return NULL;
        memset(s, 0, offsetof(ns_search, mt));
        s->dep.waiting = s->dep.queue = NULL;
        s->dep.waiting_cap = s->dep.queue_cap = 0;
    }
    memset(s, 0, offsetof(ns_search, kids));
    s->ncols = u->ncols;
    s->ncells = u->ncells;
    s->mode = u->mode;
    s->need = 4 * u->decks;
    s->any_time = u->any_time;
    s->king_only = u->king_only;
    s->whole_ok = u->whole_ok;
    s->has_cells = u->ncells > 0;
    s->nreserve = u->nreserve;
    memcpy(s->reserve, u->reserve, (size_t)u->nreserve);
    s->nreserve_to = u->nreserve_to;
    memcpy(s->reserve_to, u->reserve_to, (size_t)u->nreserve_to);
    for (int k = 0; k < u->nreserve_to; k++)
        s->is_reserve_col[u->reserve_to[k]] = 1;
    for (int c = 0; c < u->ncols; c++)
        if (!s->is_reserve_col[c])
            s->other_cols[s->nother++] = (uint8_t)c;
    for (int card = 0; card < 52; card++) {
        if (card % 13 == 12)
            continue;
        if (u->same_suit) {
            s->targets[card][s->ntargets[card]++] = (uint8_t)(card + 1);
        } else {
            for (int suit = 0; suit < 4; suit++)
                s->targets[card][s->ntargets[card]++] = (uint8_t)(suit * 13 + card % 13 + 1);
        }
    }
    s->one_target = u->decks == 1 && u->same_suit;
    int one_place = s->one_target && u->king_only;
    s->two_decks = u->decks == 2;
    s->joins_safe = u->safe_joins && one_place;
    s->strands_checked = u->safe_joins;
    s->strands_everywhere = u->safe_joins && !s->one_target;
    s->focus = u->focus && !u->same_suit;
    s->jitter = u->jitter;
    s->mti = 624;
    s->decided = -1;

    pos_t *root = &s->root;
    view_t v[NS_MAXCOLS];
    for (int c = 0; c < u->ncols; c++) {
        v[c].p = columns[c];
        v[c].len = u->lens[c];
    }
    pack(s, root, v);
    for (int k = 0; k < NS_MAXCELLS; k++)
        root->cells[k] = (int8_t)(k < u->ncells ? u->cells[k] : NO_CARD);
    root->dealt = !u->nreserve;
    root->removed = (uint16_t)u->removed;
    root->won = (uint8_t)is_won(s, v, u->removed);
    root->priority = 0;
    /* Where every column is checked after each move, a move need check only the two it
     * changed, once every column has been (search.py's ``settled``). */
    s->settled = s->mode != NS_ALL || !settle_all(s, v);
    return s;
}

/* Free ``*items`` if it holds more than ``keep``. */
static void trim(void **items, size_t *cap, size_t keep)
{
    if (*cap > keep) {
        free(*items);
        *items = NULL;
        *cap = 0;
    }
}

void ns_free(ns_search *s)
{
    if (!s)
        return;
    if (!spare) {
        /* Kept for the thread's next search, with its arrays while they are small: the
         * solver's common case is many small searches (hints, analyses, surveys). */
        size_t rank_cap = s->kids_cap;
        trim((void **)&s->rank, &rank_cap, KEEP_KIDS);
        trim((void **)&s->kids, &s->kids_cap, KEEP_KIDS);
        trim((void **)&s->frames, &s->frames_cap, KEEP_FRAMES);
        trim((void **)&s->path, &s->path_cap, KEEP_FRAMES);
        trim((void **)&s->keys, &s->keys_cap, KEEP_KEYS);
        if (s->table_cap > KEEP_TABLE) {
            free(s->offsets);
            s->offsets = NULL;
            trim((void **)&s->hashes, &s->table_cap, KEEP_TABLE);
            s->table_len = 0;
        }
        trim((void **)&s->dep.waiting, &s->dep.waiting_cap, KEEP_KEYS);
        trim((void **)&s->dep.queue, &s->dep.queue_cap, KEEP_KEYS);
        spare = s;
        return;
    }
    free(s->kids);
    free(s->rank);
    free(s->frames);
    free(s->path);
    free(s->keys);
    free(s->hashes);
    free(s->offsets);
    free(s->dep.waiting);
    free(s->dep.queue);
    free(s);
}
