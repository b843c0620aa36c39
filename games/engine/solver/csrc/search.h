/* The native core of games.engine.solver: the search of search.py and the departures of
 * departures.py, step for step, in C.
 *
 * It searches exactly as the Python search does: the same moves in the same order, the
 * same transposition keys (up to their encoding), the same reductions and the same random
 * order in a probe (Python's Mersenne Twister, whose state goes in and comes back out), so
 * that it gives the same verdict, line and node count. module.c makes it a CPython type;
 * games/engine/solver/native.py feeds it. */
#ifndef SCORPION_SEARCH_H
#define SCORPION_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#define NS_MAXCOLS 16
#define NS_MAXCELLS 4
#define NS_MAXCARDS 104
#define NS_MAXRESERVE 16
/* The bytes of a position: each column's face-down count, then every card. */
#define NS_DATA (NS_MAXCOLS + NS_MAXCARDS)
/* Bytes to spare past a buffer of columns or keys: they are copied 16 bytes at a time. */
#define NS_SPARE 16
/* Python's random.Random state: 624 words, then the index. */
#define NS_MT_WORDS 625

enum { NS_DESTINATION = 0, NS_ALL = 1, NS_STAY = 2 };
/* NS_CUT: the search passed its deadline, or every search was interrupted (ns_interrupt);
 * it is left as a search stopped on its budget is. */
enum { NS_LOST = 0, NS_WON = 1, NS_UNKNOWN = 2, NS_CUT = 3, NS_NOMEMORY = -1 };

/* What search.py's Search.__init__ reads from the rules and the state. */
typedef struct {
    int ncols;
    /* The columns one after another, each as search.py holds it (its face-down count,
     * then its cards): column c is lens[c] bytes. */
    uint8_t data[NS_DATA + NS_SPARE]; /* to spare: columns are copied 16 bytes at a time */
    int lens[NS_MAXCOLS];
    int ncells;
    int cells[NS_MAXCELLS]; /* a card, or -1 */
    int nreserve;
    uint8_t reserve[NS_MAXRESERVE];
    int nreserve_to;
    uint8_t reserve_to[NS_MAXRESERVE];
    int removed;
    int decks;
    int same_suit, king_only, whole_ok, mode, any_time;
    int safe_joins, focus, jitter;
} ns_setup;

typedef struct ns_search ns_search;

/* A search from ``setup``, or NULL with ``*error`` set when the position is outside what
 * the core takes (then the caller searches in Python) or memory is short. */
ns_search *ns_new(const ns_setup *setup, const char **error);
void ns_free(ns_search *search);
/* Search.run: go on until ``budget`` distinct positions in all; a verdict, or
 * NS_NOMEMORY; NS_CUT once CLOCK_MONOTONIC passes ``deadline`` (seconds, as Python's
 * time.monotonic(); 0: none) or after ns_interrupt(), looked at every 1024 steps. */
int ns_run(ns_search *search, int64_t budget, double deadline);
/* Cut every search of the process, running or to come (a worker that stops). */
void ns_interrupt(void);
int64_t ns_nodes(const ns_search *search);
/* The won line: 4 bytes a step, (kind, a, b, c) as search.py's Step. */
size_t ns_line(const ns_search *search, const uint8_t **steps);
void ns_mt_get(const ns_search *search, uint32_t state[NS_MT_WORDS]);
void ns_mt_set(ns_search *search, const uint32_t state[NS_MT_WORDS]);

#endif
