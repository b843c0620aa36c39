/* Which cards of a position can ever leave their place: stranded cards and two copies, one
 * place, of search.c, as games/engine/solver/departures.py computes them (its docstring
 * gives the argument).
 *
 * Only sets decide: the least set closed under departures.py's conditions, with or without
 * one card held in place. So the closure is found by passes over the cards on bit sets
 * (dep_closure; with one deck, stranded_one_deck), which may let cards in in another order
 * than departures.py's queue: the same set, and the same answers. With two decks, two
 * copies, one place also reads the order in which cards joined and why each did, to settle
 * most pairs without a second closure; any such derivation settles them alike. */
#include "core.h"

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

/* _grow's join: put ``i`` in. (This core asks only for whole closures, as two copies with one
 * place needs: departures.py's ``until_needed`` is the one-deck check's, on bit sets below.) */
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

/* Departures.closure: the order in which each card joined, in d->order (NEVER if never),
 * and the cards that let each one in, in d->why.
 *
 * Found by passes over the cards not in yet, on bit sets, until a pass adds none, where
 * departures.py works through a queue of the cards waiting on each card: the cards may
 * join in another order, but the set is the same (a set closed under these conditions has
 * one least fixed point), and so is every answer read from the order. A card's order and
 * its causes are a derivation: each cause joined before it. two copies, one place reads
 * them only to rule out quickly that a card may depart only after another one (it may
 * not, when it joined first or no chain of causes leads back to the other), and a
 * derivation that does not pass through a card shows a line in which it never moves; what
 * is left is decided on the closure with that card held (dep_without), a set again. */
static void dep_closure(dep_t *d)
{
    int total = d->total;
    for (int i = 0; i < total; i++)
        d->order[i] = NEVER;
    places_t leaves = {{0, 0}};
    int any_empty = d->any_empty, emptied = -1, step = 0;
    int *pending = d->list, npending = d->nentries;
    for (int k = 0; k < npending; k++)
        pending[k] = k;
    for (;;) {
        int kept = 0;
        for (int k = 0; k < npending; k++) {
            const entry_t *e = &d->entries[pending[k]];
            int cause[3] = {0, 0, 0}, n = 0, ok;
            if (e->up >= 0) {
                if (!HAS(leaves, e->up)) {
                    pending[kept++] = pending[k];
                    continue;
                }
                cause[n++] = e->up;
            }
            ok = e->none;
            if (!ok && e->to_empty && any_empty) {
                if (emptied >= 0)
                    cause[n++] = emptied;
                ok = 1;
            }
            for (int w = 0; !ok && w < e->nways; w++) {
                const way_t *way = &d->ways[e->way0 + w];
                if (way->cover >= 0 && !HAS(leaves, way->cover))
                    continue;
                int between = -1;
                if (way->low != way->high) {
                    places_t both = span(way->low, way->high);
                    both.w[0] &= leaves.w[0];
                    both.w[1] &= leaves.w[1];
                    if (both.w[0])
                        between = __builtin_ctzll(both.w[0]);
                    else if (both.w[1])
                        between = 64 + __builtin_ctzll(both.w[1]);
                    else
                        continue;
                }
                if (way->cover >= 0)
                    cause[n++] = way->cover;
                if (between >= 0)
                    cause[n++] = between;
                ok = 1;
            }
            if (!ok) {
                pending[kept++] = pending[k];
                continue;
            }
            int i = e->i;
            ADD(leaves, i);
            d->order[i] = step++;
            memcpy(d->why[i], cause, sizeof cause);
            d->nwhy[i] = n;
            if (!any_empty && d->is_emptier[i]) {
                any_empty = 1;
                emptied = i;
            }
        }
        if (kept == npending)
            return;
        npending = kept;
    }
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

/* Departures.one_place: two copies, one place, over the whole closure in d->order; -1 out
 * of memory. */
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

/* Stranded cards with one deck: whether a needed card lies outside the least set closed
 * under departures.py's conditions. Only that set matters here (not the order in which
 * cards join it, which two copies with one place reads), and a set has one least fixed point, so it is
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

/* lost_as_it_stands: stranded cards, and with two decks two copies with one place; -1 out
 * of memory. */
int ns_stranded(ns_search *s, const pos_t *p)
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
    dep_closure(d);
    for (int i = 0; i < d->total; i++)
        if (d->needed[i] && d->order[i] == NEVER)
            return 1;
    return dep_one_place(d);
}
