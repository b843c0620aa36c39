/* The search of games/engine/solver/search.py in C (its departures, stranded cards and two
 * copies with one place, are in departures.c).
 *
 * Each function below names the Python function it mirrors; the docstrings there give the
 * argument for every reduction. What differs is only how things are held: a position is
 * one flat struct (each column's face-down count, then its cards, as search.py's bytes),
 * the children of the positions on the line live on one stack, and the transposition
 * table is an open-addressing table of keys. Wherever Python's iteration order can change
 * an answer (the order of the moves, of the children, of a probe's random draws) this code
 * keeps it. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <time.h>

#include "core.h"

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

/* pack, where only columns ``x`` and ``y`` (x <= y; x == y for one) differ from ``node``:
 * the columns between them, and after, are copied in one piece each. */
static void pack_two(const ns_search *s, const pos_t *node, pos_t *out, const view_t *v, int x, int y)
{
    int ncols = s->ncols;
    memcpy(out->start, node->start, sizeof out->start);
    copy_col(out->data, node->data, node->start[x]);
    int at = node->start[x];
    copy_col(out->data + at, v[x].p, v[x].len);
    at += v[x].len;
    if (y != x) {
        int from = node->start[x + 1], n = node->start[y] - from, shift = at - from;
        copy_col(out->data + at, node->data + from, n);
        at += n;
        for (int c = x + 1; c <= y; c++)
            out->start[c] = (uint8_t)(out->start[c] + shift);
        copy_col(out->data + at, v[y].p, v[y].len);
        at += v[y].len;
    }
    /* Always: copy_col may have written up to 7 bytes past column y. */
    int from = node->start[y + 1], shift = at - from;
    copy_col(out->data + at, node->data + from, node->start[ncols] - from);
    if (shift)
        for (int c = y + 1; c <= ncols; c++)
            out->start[c] = (uint8_t)(out->start[c] + shift);
}

/* Search.play: the child after ``step``. */
static void play(ns_search *s, const pos_t *node, step_t step, pos_t *child)
{
    view_t v[NS_MAXCOLS];
    int mode = s->mode;
    /* Every column is read where every column may change or count: else only the two the
     * move changes. */
    int every = mode == NS_STAY || (mode == NS_ALL && !s->settled);
    int priority, t, a = step.a, b = step.b;
    if (every) {
        views_of(s, node, v);
    } else if (step.kind == 0) {
        v[a].p = COL(node, a);
        v[a].len = LEN(node, a);
    }
    const uint8_t *pile;
    int npile;
    uint8_t cell_pile[NS_SPARE] = {0};
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
            copy_col(rest + 1, src + 1, b);
            rest[0] = (uint8_t)(b - 1);
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
    if (mode == NS_ALL && !s->settled)
        pack(s, child, v);
    else if (step.kind == 0)
        pack_two(s, node, child, v, a < t ? a : t, a < t ? t : a);
    else
        pack_two(s, node, child, v, t, t);
    child->kept = !runs && !(mode == NS_ALL && !s->settled);
    child->built = 1;
    child->ordered = node->ordered && !runs && v[t].len - npile > 1 && (step.kind || b);
    child->as_parent = child->ordered;
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
    child->as_parent = 0;
    child->kept = 0;
    child->built = 1;
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
/* Where each face-up card of column ``c`` is, into ``where`` and ``index``. */
static inline void locate(const pos_t *p, int c, uint8_t *where, uint8_t *index)
{
    const uint8_t *col = COL(p, c);
    int len = LEN(p, c);
    for (int j = 1 + col[0]; j < len; j++) {
        int card = col[j];
        where[card] = (uint8_t)c;
        index[card] = (uint8_t)(j - 1);
    }
}

/* Where each face-up card of ``p`` is, and at which index, into the frame ``f`` about to
 * be pushed: a face-down card can neither move nor be built on, so to one_target_moves it
 * is as good as nowhere (search.py finds it, then drops it). From the parent's frame
 * ``up`` where ``p`` kept its other columns: a move changes where the cards of its two
 * columns lie (a card from a cell lands in a column), no other. */
static void locate_all(const ns_search *s, const pos_t *p, const frame_t *up, frame_t *f)
{
    if (up && p->kept) {
        memcpy(f->where, up->where, sizeof f->where);
        memcpy(f->index, up->index, sizeof f->index);
        if (p->step.kind == 0) {
            locate(p, p->step.a, f->where, f->index);
            locate(p, p->step.c, f->where, f->index);
        } else {
            locate(p, p->step.b, f->where, f->index);
        }
        return;
    }
    memset(f->where, NOWHERE, sizeof f->where);
    for (int c = 0; c < s->ncols; c++)
        locate(p, c, f->where, f->index);
    for (int cell = 0; cell < s->ncells; cell++)
        if (p->cells[cell] >= 0)
            f->where[p->cells[cell]] = (uint8_t)(IN_CELL + cell);
}

static int one_target_moves(ns_search *s, const pos_t *p, const frame_t *f, int *progress)
{
    step_t *steps = s->steps;
    int n = 0;
    const uint8_t *where = f->where, *index = f->index;
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

static void key_layout(const ns_search *s, const pos_t *p, frame_t *f);

/* Search.children: push a frame of every successor worth searching, most promising first;
 * 0 when out of memory. ``node`` must not lie on the kid stack. */
static int plain(const ns_search *s, const pos_t *node, step_t step, int32_t *priority);

static int children(ns_search *s, const pos_t *node, int mark, int64_t key, int64_t parent)
{
    int progress, n;
    if (!grow((void **)&s->frames, &s->frames_cap, s->nframes + 1, sizeof(frame_t)))
        return 0;
    frame_t *f = &s->frames[s->nframes];
    if (s->one_target) {
        locate_all(s, node, s->nframes ? f - 1 : NULL, f);
        n = one_target_moves(s, node, f, &progress);
    } else {
        n = general_moves(s, node, &progress);
    }
    if (!kids_room(s, (size_t)n + 1))
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
    /* With one deck, a plain move's kid is played only once it is found new. */
    int lazy = key >= 0 && s->mode != NS_STAY && s->settled && node->ordered;
    for (int k = 0; k < n; k++) {
        pos_t *kid = &kids[count++];
        step_t st = s->steps[k];
        if (lazy && plain(s, node, st, &kid->priority)) {
            kid->step = st;
            kid->won = 0;
            kid->built = 0;
        } else {
            play(s, node, st, kid);
        }
    }
    if (!node->dealt && s->nreserve && (s->any_time || !progress)) {
        deal(s, node, &kids[count]);
        if (!(s->strands_checked && !s->strands_everywhere && ns_stranded(s, &kids[count])))
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
    s->nframes++;
    f->base = base;
    f->count = count;
    f->at = 0;
    f->mark = mark;
    f->key = key;
    f->parent = parent;
    if (key >= 0)
        key_layout(s, node, f);
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

/* Search.key: equal keys, equal futures (interchangeable columns). Encoded otherwise than in
 * Python but
 * equal exactly when Python's keys are: the reserve's columns in order while the reserve is
 * undealt, then the other columns in an order that depends only on which columns there are
 * (sorted, or with one deck by their bottom cards), each with its length; then the cells,
 * sorted. */
static int cells_key(const ns_search *s, const pos_t *p, uint8_t *out);

static int splice_step(const ns_search *s, const frame_t *f, const pos_t *parent, step_t step, uint8_t *out);

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
    if (s->has_cells)
        at += cells_key(s, p, out + at);
    return at;
}

/* Where make_key puts each column of ``p`` (one deck, its order known) in its key: the
 * offset of its length byte, and of the cells' part (from the columns' lengths, which
 * need not wait on one another as reading the key's length bytes would). */
static void key_layout(const ns_search *s, const pos_t *p, frame_t *f)
{
    int at = 1;
    int dealt = p->dealt || !s->nreserve_to;
    if (!dealt)
        for (int k = 0; k < s->nreserve_to; k++) {
            int c = s->reserve_to[k];
            f->seg[c] = (uint8_t)at;
            at += LEN(p, c) + 1;
        }
    for (int k = 0; k < s->ncols; k++) {
        int c = p->order[k];
        if (dealt || !s->is_reserve_col[c]) {
            f->seg[c] = (uint8_t)at;
            at += LEN(p, c) + 1;
        }
    }
    f->cells_at = (uint8_t)at;
}

/* The cells' part of a key: a mark, then the cards in them, sorted; cell ``skip`` (-1:
 * none) counted as empty. */
static int cells_part(const ns_search *s, const int8_t *in, int skip, uint8_t *out)
{
    int cells[NS_MAXCELLS], m = 0, at = 0;
    for (int k = 0; k < s->ncells; k++) {
        int card = in[k];
        if (card < 0 || k == skip)
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
    return at;
}

static int cells_key(const ns_search *s, const pos_t *p, uint8_t *out)
{
    return cells_part(s, p->cells, -1, out);
}

/* Whether the frame's key and layout are the parent's, as far as splicing a child's key
 * from them reads them: the key lies within the table's keys, and column ``x`` (and ``y``
 * unless -1; x's segment first) has its segment, in order, within the columns' part, with
 * the parent's length there; the child's columns of ``lx`` and ``ly`` bytes then fit a
 * key. A splice that finds otherwise (a bug: it cannot) makes the key afresh instead. */
static int splice_ok(const ns_search *s, const frame_t *f, const pos_t *parent, int x, int y, int lx, int ly)
{
    if (f->key < 0 || (size_t)f->key >= s->keys_len || x < 0 || x >= s->ncols || y >= s->ncols || y == x)
        return 0;
    const uint8_t *key = s->keys + f->key;
    int plen = key[0], cells_at = f->cells_at;
    if ((size_t)f->key + 1 + (size_t)plen > s->keys_len || cells_at > plen ||
        (!s->has_cells && cells_at != plen))
        return 0;
    key++;
    int sx = f->seg[x];
    if (sx < 1 || sx >= cells_at || key[sx] != LEN(parent, x) || sx + 1 + key[sx] > cells_at)
        return 0;
    int size = plen - 1 - key[sx] + lx;
    if (y >= 0) {
        int sy = f->seg[y];
        if (sy < sx + 1 + key[sx] || sy >= cells_at || key[sy] != LEN(parent, y) ||
            sy + 1 + key[sy] > cells_at)
            return 0;
        size += ly - 1 - key[sy];
    }
    return size <= KEY_MAX;
}

/* make_key of ``child``, a child of the frame's position ``node`` that kept its order
 * (one deck, ``as_parent``): the parent's key with the columns the move changed, and
 * the cells after a move from a cell, put in. The same bytes as make_key's; -1 where the
 * frame's key cannot be spliced (splice_ok). */
static int splice_key(const ns_search *s, const frame_t *f, const pos_t *node, const pos_t *child, uint8_t *out)
{
    if (child->step.kind > 1)
        return -1;
    int x = child->step.kind == 0 ? child->step.c : child->step.b, y = -1;
    if (x >= s->ncols)
        return -1;
    if (child->step.kind == 0) {
        y = child->step.a;
        if (y >= s->ncols)
            return -1;
        if (f->seg[y] < f->seg[x]) {
            int z = x;
            x = y;
            y = z;
        }
    } else if (child->step.a >= s->ncells) {
        return -1;
    }
    if (!splice_ok(s, f, node, x, y, 1 + LEN(child, x), y < 0 ? 0 : 1 + LEN(child, y)))
        return -1;
    const uint8_t *parent = s->keys + f->key;
    int plen = parent[0];
    parent++;
    int from = f->seg[x], at = from;
    copy_col(out, parent, from);
    int len = LEN(child, x);
    out[at] = (uint8_t)len;
    copy_col(out + at + 1, COL(child, x), len);
    at += 1 + len;
    from += 1 + parent[from];
    if (y >= 0) {
        int n = f->seg[y] - from;
        copy_col(out + at, parent + from, n);
        at += n;
        len = LEN(child, y);
        out[at] = (uint8_t)len;
        copy_col(out + at + 1, COL(child, y), len);
        at += 1 + len;
        from = f->seg[y] + 1 + parent[f->seg[y]];
    }
    int n = f->cells_at - from;
    copy_col(out + at, parent + from, n);
    at += n;
    if (!s->has_cells)
        return at;
    if (child->step.kind == 0) {
        copy_col(out + at, parent + f->cells_at, plen - f->cells_at);
        return at + plen - f->cells_at;
    }
    return at + cells_key(s, child, out + at);
}

/* splice_key of the kid the plain move ``step`` makes of ``parent`` (the frame's
 * position), without playing it: column t gains the pile, column a keeps its first b
 * cards (the last face-down one turned up where it is the last), a cell is emptied. */
static int splice_step(const ns_search *s, const frame_t *f, const pos_t *parent, step_t step, uint8_t *out)
{
    if (step.kind > 1)
        return -1;
    int t = step.kind == 0 ? step.c : step.b;
    if (t >= s->ncols)
        return -1;
    const uint8_t *dest = COL(parent, t);
    int destlen = LEN(parent, t);
    const uint8_t *pile;
    int npile;
    uint8_t card[NS_SPARE] = {0};
    if (step.kind == 0) {
        /* A plain move takes a pile of face-up cards, not the whole column. */
        if (step.a >= s->ncols || step.b < 1 || step.b >= LEN(parent, step.a) - 1)
            return -1;
        pile = COL(parent, step.a) + 1 + step.b;
        npile = LEN(parent, step.a) - 1 - step.b;
    } else {
        if (step.a >= s->ncells || parent->cells[step.a] < 0)
            return -1;
        card[0] = (uint8_t)parent->cells[step.a];
        pile = card;
        npile = 1;
    }
    int x = t, y = -1;
    if (step.kind == 0) {
        y = step.a;
        if (f->seg[y] < f->seg[x]) {
            x = y;
            y = t;
        }
    }
    int lt = 1 + destlen + npile, la = step.kind == 0 ? 2 + step.b : 0;
    if (!splice_ok(s, f, parent, x, y, x == t ? lt : la, y < 0 ? 0 : y == t ? lt : la))
        return -1;
    const uint8_t *key = s->keys + f->key;
    int plen = key[0];
    key++;
    int from = f->seg[x], at = from;
    copy_col(out, key, from);
    for (int turn = 0; turn < 2; turn++) {
        int c = turn ? y : x;
        if (c < 0)
            break;
        if (turn) {
            int n = f->seg[c] - from;
            copy_col(out + at, key + from, n);
            at += n;
        }
        if (c == t) {
            out[at] = (uint8_t)(destlen + npile);
            copy_col(out + at + 1, dest, destlen);
            copy_col(out + at + 1 + destlen, pile, npile);
            at += 1 + destlen + npile;
        } else {
            const uint8_t *src = COL(parent, c);
            int b = step.b, down = src[0];
            out[at] = (uint8_t)(b + 1);
            copy_col(out + at + 1, src, b + 1);
            out[at + 1] = (uint8_t)(b == down ? b - 1 : down);
            at += 2 + b;
        }
        from = f->seg[c] + 1 + key[f->seg[c]];
    }
    int n = f->cells_at - from;
    copy_col(out + at, key + from, n);
    at += n;
    if (!s->has_cells)
        return at;
    if (step.kind == 0) {
        copy_col(out + at, key + f->cells_at, plen - f->cells_at);
        return at + plen - f->cells_at;
    }
    return at + cells_part(s, parent->cells, step.a, out + at);
}

/* Whether the move ``step`` of ``node`` is plain: it leaves the columns in their order (it
 * neither empties nor fills one) and no run can leave; then its priority, as play's. */
static int plain(const ns_search *s, const pos_t *node, step_t step, int32_t *priority)
{
    int t = step.kind == 0 ? step.c : step.b;
    int destlen = LEN(node, t);
    if (destlen <= 1)
        return 0;
    int up_t = destlen - 1 - COL(node, t)[0];
    if (step.kind == 1) {
        int card = node->cells[step.a];
        if (card % 13 == 0 && up_t + 1 >= 13)
            return 0;
        *priority = P_EMPTIES;
        return 1;
    }
    const uint8_t *src = COL(node, step.a);
    int b = step.b, npile = LEN(node, step.a) - 1 - b;
    if (!b)
        return 0;
    /* A run may leave the destination (a pile ending in an Ace on 13 face-up cards), or,
     * where runs leave from any column, the source. */
    if (src[b + npile] % 13 == 0 && up_t + npile >= 13)
        return 0;
    int flip = b == src[0];
    if (s->mode == NS_ALL && src[b] % 13 == 0 && b - (flip ? b - 1 : src[0]) >= 13)
        return 0;
    int low = src[1 + b];
    int prio = flip ? P_FLIP : src[b] == low + 1 && low % 13 != 12 ? P_BREAKS : 0;
    if (COL(node, t)[destlen - 1] / 13 == low / 13)
        prio += P_BUILD;
    *priority = prio;
    return 1;
}

/* Two lanes of 8 bytes, so that each word waits on one multiplication, not on the whole
 * chain; mixed at the end. ``key`` has NS_SPARE bytes to spare, which it zeroes. */
static uint64_t hash_key(uint8_t *key, int len)
{
    memset(key + len, 0, 16);
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)len, g = 0xC2B2AE3D27D4EB4FULL;
    int k = 0;
    for (; k + 16 <= len; k += 16) {
        uint64_t w, x;
        memcpy(&w, key + k, 8);
        memcpy(&x, key + k + 8, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        g = (g ^ x) * 0xc4ceb9fe1a85ec53ULL;
    }
    uint64_t w, x;
    memcpy(&w, key + k, 8);
    memcpy(&x, key + k + 8, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    g = (g ^ x) * 0xc4ceb9fe1a85ec53ULL;
    h ^= (g >> 29) ^ (g << 35);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static int table_grow(ns_search *s)
{
    size_t cap = s->table_cap ? s->table_cap * 2 : 1 << 8;
    if (cap > ((size_t)1 << 32))
        return 0;
    slot_t *slots = calloc(cap, sizeof(slot_t));
    if (!slots)
        return 0;
    for (size_t k = 0; k < s->table_cap; k++) {
        if (!s->slots[k].at8)
            continue;
        size_t at = (size_t)s->slots[k].check & (cap - 1);
        while (slots[at].at8)
            at = (at + 1) & (cap - 1);
        slots[at] = s->slots[k];
    }
    free(s->slots);
    s->slots = slots;
    s->table_cap = cap;
    return 1;
}

/* Empty the table of a search kept for the thread's next one (ns_free), at a cost in the
 * keys it holds rather than in its size where it is mostly empty: a large table kept is
 * then as cheap to reuse for a hint's small samples as a small one. */
static void table_clear(ns_search *s)
{
    if (s->table_len * 16 >= s->table_cap) {
        memset(s->slots, 0, s->table_cap * sizeof(slot_t));
    } else {
        /* Every key in ``keys`` has its slot, reached from its hash's first slot past
         * others (some emptied already by this loop, so the walk looks for the key's own
         * slot rather than stopping at an empty one). */
        uint8_t key[KEY_ROOM];
        size_t mask = s->table_cap - 1;
        for (size_t at = 0; at < s->keys_len; at = (at + s->keys[at] + 1 + 7) & ~(size_t)7) {
            int len = s->keys[at];
            memcpy(key, s->keys + at + 1, (size_t)len);
            uint32_t at8 = (uint32_t)(at / 8 + 1);
            size_t k = (size_t)(uint32_t)(hash_key(key, len) >> 32) & mask;
            while (s->slots[k].at8 != at8)
                k = (k + 1) & mask;
            s->slots[k].at8 = 0;
            s->slots[k].check = 0;
        }
    }
    s->table_len = 0;
}

/* The slot of ``key``: found (1) or where it would go (0). */
static int table_find(const ns_search *s, const uint8_t *key, int len, uint64_t h, size_t *slot)
{
    uint32_t check = (uint32_t)(h >> 32);
    size_t mask = s->table_cap - 1, at = (size_t)check & mask;
    while (s->slots[at].at8) {
        if (s->slots[at].check == check) {
            const uint8_t *known = s->keys + 8 * ((size_t)s->slots[at].at8 - 1);
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
    /* Bytes to spare: splice_key copies a key 16 bytes at a time. */
    if (!grow((void **)&s->keys, &s->keys_cap, s->keys_len + (size_t)len + 1 + NS_SPARE, 1))
        return 0;
    if (s->keys_len / 8 + 1 > UINT32_MAX)
        return 0;
    if ((s->table_len + 1) * 2 > s->table_cap) {
        if (!table_grow(s))
            return 0;
        table_find(s, key, len, h, &slot);
    }
    s->keys[s->keys_len] = (uint8_t)len;
    memcpy(s->keys + s->keys_len + 1, key, (size_t)len);
    s->slots[slot].check = (uint32_t)(h >> 32);
    s->slots[slot].at8 = (uint32_t)(s->keys_len / 8 + 1);
    s->keys_len = (s->keys_len + (size_t)len + 1 + 7) & ~(size_t)7;
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
    if (s->strands_checked && ns_stranded(s, root))
        return NS_LOST;
    uint8_t key[KEY_ROOM];
    int len = make_key(s, root, key);
    uint64_t h = hash_key(key, len);
    size_t slot;
    if (!s->table_cap && !table_grow(s))
        return -2;
    table_find(s, key, len, h, &slot);
    int64_t at = (int64_t)s->keys_len;
    if (!table_add(s, key, len, h, slot))
        return -2;
    return children(s, root, 0, s->two_decks ? -1 : at, -1) ? -1 : -2;
}

static volatile int interrupted = 0;

void ns_interrupt(void)
{
    interrupted = 1;
}

/* Whether the search must stop now: interrupted, or past ``deadline`` (0: none). */
static int cut(double deadline)
{
    if (interrupted)
        return 1;
    if (deadline <= 0)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9 > deadline;
}

int ns_run(ns_search *s, int64_t budget, double deadline)
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
    uint8_t key[KEY_ROOM];
    pos_t node;
    unsigned steps = 0;
    while (s->nframes) {
        if ((++steps & 1023) == 0 && cut(deadline)) {
            s->nodes = nodes;
            return NS_CUT;
        }
        frame_t *f = &s->frames[s->nframes - 1];
        if (f->at == f->count) {
            s->nkids = f->base;
            s->nframes--;
            continue;
        }
        size_t kid = f->base + (size_t)s->rank[f->base + (size_t)f->at];
        pos_t *child = &s->kids[kid];
        const pos_t *parent = f->parent < 0 ? &s->root : &s->kids[f->parent];
        /* A child is spliced from its parent only where it kept its parent's order
         * (as_parent), never on ``ordered`` alone: make_key sets that too, with the
         * child's own order, and a search stopped on its budget at this child looks at it
         * again when it goes on. */
        int len = -1;
        if (f->key >= 0 && !child->built)
            len = splice_step(s, f, parent, child->step, key);
        else if (f->key >= 0 && child->as_parent)
            len = splice_key(s, f, parent, child, key);
#ifdef NS_STRICT_SPLICE
        /* Checked builds (docs/architecture.md): a splice refused is a bug. */
        if (len < 0 && f->key >= 0 && (!child->built || child->as_parent))
            abort();
#endif
        if (len < 0) {
            if (!child->built)
                play(s, parent, child->step, child);
            len = make_key(s, child, key);
        }
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
        int64_t at = (int64_t)s->keys_len;
        if (!table_add(s, key, len, h, slot) || !path_push(s, (size_t)mark, child->step))
            return NS_NOMEMORY;
        nodes++;
        if (!child->built)
            play(s, parent, child->step, child); /* its kids' parent, in its place */
        if (child->won) {
            s->nodes = nodes;
            return s->decided = NS_WON;
        }
        if (s->strands_everywhere && ns_stranded(s, child))
            continue; /* lost (stranded cards) */
        node = *child; /* a copy: the kid stack may move as it grows */
        if (!children(s, &node, mark + 1, s->two_decks ? -1 : at, (int64_t)kid))
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
/* What a kept search keeps at most: kids, frames (and steps of the line), key bytes and
 * table slots (about 1.5 MB in all: a frame holds where each card lies, some 170 bytes).
 * The table is the one that pays to keep large: a search of 20,000 nodes spends a tenth of
 * its time growing one from small (three_blind_mice seed 1, one after another). */
#define KEEP_KIDS 512
#define KEEP_FRAMES 1024
#define KEEP_KEYS (1 << 19)
#define KEEP_TABLE (1 << 16)

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
        s->nkids = s->nframes = s->npath = s->keys_len = 0;
    } else {
        s = malloc(sizeof *s);
        if (!s)
            return NULL;
        memset(s, 0, offsetof(ns_search, mt));
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
        /* The table is emptied before the keys go: a sparse one is emptied from them. */
        if (s->table_cap > KEEP_TABLE)
            trim((void **)&s->slots, &s->table_cap, KEEP_TABLE);
        else if (s->table_len)
            table_clear(s);
        s->table_len = 0;
        trim((void **)&s->keys, &s->keys_cap, KEEP_KEYS);
        spare = s;
        return;
    }
    free(s->kids);
    free(s->rank);
    free(s->frames);
    free(s->path);
    free(s->keys);
    free(s->slots);
    free(s);
}
