/* Which cards of a position can ever leave their place: stranded cards and two copies, one
 * place, of search.c, as games/engine/solver/departures.py computes them (its docstring
 * gives the argument).
 *
 * Only sets decide: the least set closed under departures.py's conditions, with or without
 * one card held in place. So the closure is found by passes over the cards on bit sets
 * (dep_closure, dep_without; with one deck, stranded_one_deck), which may let cards in in
 * another order than departures.py's queue: the same set, and the same answers. With two decks, two
 * copies, one place also reads the order in which cards joined and why each did, to settle
 * most pairs without a second closure; any such derivation settles them alike. */
#include "core.h"

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

/* Whether entry ``e``'s card may depart once the cards of ``leaves`` have (an empty column
 * to be had when ``any_empty``), with the cards that let it into ``cause`` (at most 3):
 * departures.py's way in. */
static inline int departs(const dep_t *d, const entry_t *e, places_t leaves, int any_empty,
                          int emptied, int cause[3], int *ncause)
{
    int n = 0;
    if (e->up >= 0) {
        if (!HAS(leaves, e->up))
            return 0;
        cause[n++] = e->up;
    }
    int ok = e->none;
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
    *ncause = n;
    return ok;
}

/* Passes over the ``npending`` entries listed in ``d->list``, letting into ``leaves`` each
 * card that may depart once the cards in it have, until a pass lets none in. With
 * ``record``, each card's order (counted on from ``d->njoined``) and causes are recorded,
 * as dep_closure's derivation. */
static inline void dep_passes(dep_t *d, int npending, places_t *leaves, int any_empty, int record)
{
    int *pending = d->list, emptied = -1;
    for (;;) {
        int kept = 0;
        for (int k = 0; k < npending; k++) {
            const entry_t *e = &d->entries[pending[k]];
            int cause[3] = {0, 0, 0}, n;
            if (!departs(d, e, *leaves, any_empty, emptied, cause, &n)) {
                pending[kept++] = pending[k];
                continue;
            }
            int i = e->i;
            ADD(*leaves, i);
            if (record) {
                d->joined[d->njoined] = i;
                d->order[i] = d->njoined++;
                memcpy(d->why[i], cause, sizeof cause);
                d->nwhy[i] = n;
            }
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
    for (int k = 0; k < d->nentries; k++)
        d->list[k] = k;
    places_t leaves = {{0, 0}};
    d->njoined = 0;
    dep_passes(d, d->nentries, &leaves, d->any_empty, 1);
}

/* Departures.without: the least set with ``held`` never departing. The cards that joined
 * the closure before ``held`` are in it, and so is each card that joined after it whose
 * causes are all in (the same derivation holds). The others go through dep_passes, as in
 * dep_closure. */
static places_t dep_without(dep_t *d, int held)
{
    const int *order = d->order;
    int limit = order[held], npending = 0;
    int *pending = d->list;
    places_t leaves = {{0, 0}}, out = {{0, 0}};
    int any_empty = d->any_empty;
    for (int step = 0; step < d->njoined; step++) {
        int i = d->joined[step], in = step < limit;
        if (step > limit) { /* in unless one of its causes is out */
            in = 1;
            for (int k = 0; k < d->nwhy[i]; k++)
                in &= !HAS(out, d->why[i][k]);
        }
        if (in) {
            ADD(leaves, i);
            any_empty |= d->is_emptier[i];
        } else {
            ADD(out, i);
        }
    }
    for (int k = 0; k < d->nentries; k++) {
        int i = d->entries[k].i;
        if (!HAS(leaves, i) && i != held)
            pending[npending++] = k;
    }
    dep_passes(d, npending, &leaves, any_empty, 0);
    return leaves;
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

/* one_place's follows: whether ``u`` departs only after ``v``, if ever. */
static int follows(dep_t *d, int u, int v)
{
    if (d->order[u] == NEVER)
        return 1;
    if (!may_follow(d, u, v))
        return 0;
    if (!d->held_done[v]) {
        d->held[v] = dep_without(d, v);
        d->held_done[v] = 1;
    }
    return !HAS(d->held[v], u);
}

/* follows (strict) or may_follow. */
static int after(dep_t *d, int u, int v, int strict)
{
    return strict ? follows(d, u, v) : may_follow(d, u, v);
}

/* one_place's after_both: whether ``c`` departs only after both ``a`` and ``b``, directly
 * or through the other one. */
static int after_both(dep_t *d, int c, int a, int b, int strict)
{
    return (after(d, c, a, strict) || (after(d, c, b, strict) && after(d, b, a, strict))) &&
           (after(d, c, b, strict) || (after(d, c, a, strict) && after(d, a, b, strict)));
}

/* Departures.one_place: two copies, one place, over the whole closure in d->order. */
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
            if (after_both(d, c, a, b, 0) && after_both(d, c, a, b, 1))
                return 1;
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

/* lost_as_it_stands: stranded cards, and with two decks two copies with one place. */
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
