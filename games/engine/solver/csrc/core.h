/* What search.c and departures.c share: the position, the search, their limits. Not an
 * interface: search.h is that. */
#ifndef SCORPION_CORE_H
#define SCORPION_CORE_H

#include <stdlib.h>
#include <string.h>

#include "search.h"


#define IN_CELL 64
#define NOWHERE 255
#define NEVER (1 << 30)
#define NO_CARD (-1)
#define MAXSTEPS 4096
#define MAXWAYS (NS_MAXCARDS * 8)
/* Room for a key: the undealt mark, each column's length byte and bytes, the cells' mark
 * and cards (at most 1 + NS_MAXCOLS + NS_DATA + 1 + NS_MAXCELLS), with room to spare. */
#define KEY_ROOM (NS_DATA * 2 + NS_MAXCELLS + NS_SPARE)
#define KEY_MAX (1 + NS_MAXCOLS + NS_DATA + 1 + NS_MAXCELLS)

/* Move ordering, as search.py's _P_* (higher first). */
enum { P_RUN = 1000, P_FLIP = 100, P_EMPTIES = 40, P_BUILD = 10, P_KING = 5, P_DEAL = -1, P_BREAKS = -50 };
static const double JITTER = 15.0;

typedef struct {
    uint8_t kind, a, b, c;
} step_t;

/* search.py's Child: column c is data[start[c] .. start[c + 1]]. */
typedef struct {
    uint8_t start[NS_MAXCOLS + 1];
    uint8_t data[NS_DATA + NS_SPARE]; /* to spare: copy_col, and head() reads 8 bytes */
    int8_t cells[NS_MAXCELLS];
    step_t step;
    uint8_t dealt, won;
    /* Made by a move that changed only its two columns (and a cell): no run left. */
    uint8_t kept;
    /* 0: a kid of which only the step, priority and won are set (a plain move, found
     * seen or not from its parent's key), played only if it is new. */
    uint8_t built;
    uint16_t removed;
    int32_t priority;
    /* With one deck, the columns by bottom card (order_by_bottom) once ``ordered``: a move
     * that empties no column and fills none keeps every bottom card, so a child inherits
     * its parent's order, and its key needs no sorting. */
    uint8_t ordered;
    /* Set by play only, where the child inherits its parent's order (``ordered`` from
     * it): the child's key may be spliced from its parent's (splice_key). Not the same as
     * ``ordered``, which make_key also sets, with the child's own order: a search stopped
     * on its budget looks at that child again when it goes on, and its key spliced from
     * its parent's would then be in the wrong order. */
    uint8_t as_parent;
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
    /* With one deck, where the parent's key lies in the table's keys (-1: nowhere), and
     * in it each column's length byte and the cells' part: a child whose columns keep
     * their order has the parent's key with one or two columns changed (splice_key). */
    int64_t key;
    /* The parent: its index on the kid stack, or -1 for the root. */
    int64_t parent;
    uint8_t seg[NS_MAXCOLS];
    uint8_t cells_at;
    /* With one deck and one place per card, where each face-up card of the parent lies
     * (its column, or IN_CELL + its cell; NOWHERE) and at which index: a child that
     * ``kept`` the other columns needs only its two changed columns looked at again. */
    uint8_t where[52], index[52];
} frame_t;

/* A set of places, one bit each (a position has at most NS_MAXCARDS cards in columns). */
typedef struct {
    uint64_t w[2];
} places_t;

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
    /* The places in the order they joined (``joined[order[i]] == i``), and how many. */
    int joined[NS_MAXCARDS];
    int njoined;
    int why[NS_MAXCARDS][3];
    int nwhy[NS_MAXCARDS];
    /* The entries a closure has yet to let in. */
    int list[NS_MAXCARDS];
    /* one_place's memo of closures with one card held. */
    uint8_t held_done[NS_MAXCARDS];
    places_t held[NS_MAXCARDS];
    uint8_t seen[NS_MAXCARDS];
    int todo[NS_MAXCARDS];
} dep_t;

/* A slot of the transposition table, 8 bytes so that more of it stays in the caches: the
 * high half of a key's hash (whose low bits place it) and where the key is, in 8 bytes
 * from the start of the keys, plus 1 (0: empty). */
typedef struct {
    uint32_t check;
    uint32_t at8;
} slot_t;

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
    /* the transposition table: keys one after another (each at a multiple of 8), and
     * slots */
    uint8_t *keys;
    size_t keys_len, keys_cap;
    slot_t *slots;
    size_t table_cap, table_len;
    /* Scratch, not zeroed: everything from here on is written before it is read. */
    uint32_t mt[624]; /* Python's Mersenne Twister, set by ns_mt_set before a probe runs */
    uint8_t scratch[NS_MAXCOLS][NS_DATA + NS_SPARE];
    step_t steps[MAXSTEPS];
    double sort_keys[MAXSTEPS + 1];
    dep_t dep;
};

/* Growing arrays. */
static inline int grow(void **items, size_t *cap, size_t need, size_t size)
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

/* Copy ``n`` bytes 16 at a time, the first 16 whatever ``n`` (no call into the C library
 * for a few bytes, and a loop that is rarely taken, so rarely mispredicted): both sides
 * have NS_SPARE bytes to spare past any column or key. */
static inline void copy_col(uint8_t *dst, const uint8_t *src, int n)
{
    memcpy(dst, src, 16);
    for (int k = 16; k < n; k += 16)
        memcpy(dst + k, src + k, 16);
}

/* lost_as_it_stands (departures.c): whether stranded cards, and with two decks two copies
 * with one place, prove the position lost. */
int ns_stranded(ns_search *search, const pos_t *p);

#endif
