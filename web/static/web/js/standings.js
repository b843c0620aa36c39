// A live standings table for the daily race, a race and an arena: ranked rows as the feed
// sends them, the player's own row highlighted, rows that changed flashed, an "aided" mark
// on every entry that was shown a hint, and clocks that keep running for those still
// playing (a standing's time is stored at its last move; the page ticks it on).

import { clock, h, replace } from "./dom.js";
import { num, plural, t } from "./i18n.js";

/** The "aided" mark of an entry shown `hints` hints (none without). */
export function aidedMark(hints) {
  if (!hints) return null;
  const says = plural("standings.hints", hints);
  return h("span", { class: "aided", title: says, "aria-label": `${t("standings.aided")} (${says})` }, h("span", { "aria-hidden": "true", text: t("standings.aided") }));
}

const COLUMNS = {
  // Daily: suits, score, moves, time from joining (running while playing).
  daily: [
    ["sequences", "stats.sequences", (s, ctx) => `${s.sequences}/${ctx.goal}`],
    ["score", "stats.score", (s) => num(s.score)],
    ["moves", "stats.moves", (s) => num(s.moves)],
    ["time", "stats.time", (s, ctx) => (s.status === "playing" && ctx.running && s.started_at ? { since: s.started_at } : clock(s.elapsed_ms))],
  ],
  // A race: deals won of all, suits, score, and the time of the last win (or the race's
  // clock while the racer has not won every deal and the race runs).
  race: [
    ["won", "races.won", (s, ctx) => `${s.won}/${ctx.deals}`],
    ["sequences", "stats.sequences", (s) => num(s.sequences)],
    ["score", "stats.score", (s) => num(s.score)],
    ["time", "stats.time", (s, ctx) => (ctx.running && s.finished < ctx.deals ? { since: ctx.startsAt } : s.elapsed_ms == null ? "—" : clock(s.elapsed_ms))],
  ],
  // An arena: points, deals played and won, suits.
  arena: [
    ["points", "arena.points", (s) => num(s.points)],
    ["played", "arena.played", (s) => num(s.played)],
    ["won", "arena.won", (s) => num(s.won)],
    ["sequences", "stats.sequences", (s) => num(s.sequences)],
  ],
};

/**
 * A standings table of `kind` ("daily", "race", "arena"). `context` holds what the cells
 * need (goal, deals, startsAt, running, offset: the server's clock minus ours) and may change
 * with set(); `player(entry)` renders the player's cell (a link to their profile or replay).
 */
export function standingsTable(kind, context, { title = t("daily.standings"), note = "", player, me = null } = {}) {
  const columns = COLUMNS[kind];
  let ctx = { ...context };
  const body = h("tbody", {});
  const connection = h("span", { class: "conn", role: "status" });
  const noteEl = h("p", { class: "muted small", text: note });
  const el = h(
    "section",
    { class: `panel standings standings-${kind}`, "aria-labelledby": "standings-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "standings-title", text: title }), connection),
    h("div", { class: "table-wrap" }, h("table", { class: "table", id: "standings" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: t("daily.rank") }),
        h("th", { scope: "col", text: t("daily.player") }),
        columns.map(([, label]) => h("th", { scope: "col", class: "num", text: t(label) })),
      )),
      body,
    )),
    noteEl,
  );
  let before = new Map();
  let last = [];
  const running = new Set(); // time cells that tick: [element, since]
  const tick = () => {
    const now = Date.now() + (ctx.offset || 0);
    for (const [cell, since] of running) cell.textContent = clock(now - new Date(since));
  };
  const timer = setInterval(tick, 1000);
  const api = {
    el,
    status(status) {
      connection.className = `conn conn-${status}`;
      connection.textContent = t(`conn.${status}`);
    },
    set(next) {
      ctx = { ...ctx, ...next };
      api.update(last);
    },
    note(text) {
      noteEl.textContent = text;
    },
    /** Show `results` (the API's entries, ranked); `arrived` (a feed frame's arrival time)
     *  measures frame to table for bench/web.py. */
    update(results, arrived = null) {
      last = results;
      running.clear();
      const signature = (s) => JSON.stringify(s);
      const rows = results.map((s) => {
        const changed = before.size && before.get(s.player) !== signature(s);
        const cells = columns.map(([key, , value]) => {
          const shown = value(s, ctx);
          const cell = h("td", { class: "num", "data-col": key });
          if (shown && typeof shown === "object") running.add([cell, shown.since]);
          else cell.textContent = shown;
          return cell;
        });
        const status = kind === "daily" ? h("span", { class: `badge badge-${s.status}`, text: t(`status.${s.status === "playing" && !ctx.running ? "unfinished" : s.status}`) }) : null;
        return h("tr", { class: `${me && me === s.player ? "me" : ""} ${changed ? "changed" : ""}`, "data-player": s.player },
          h("td", { class: "rank", text: s.rank }),
          h("td", { class: "who" }, player(s), status, aidedMark(s.hints)),
          cells,
        );
      });
      before = new Map(results.map((s) => [s.player, signature(s)]));
      replace(body, rows.length ? rows : h("tr", {}, h("td", { colspan: columns.length + 2, class: "muted", text: t("daily.nobody") })));
      tick();
      if (arrived !== null) {
        el.getBoundingClientRect(); // laid out as it will be painted
        performance.measure("scorpion:frame-to-standings", { start: arrived, end: performance.now() });
      }
    },
    stop: () => clearInterval(timer),
  };
  return api;
}
