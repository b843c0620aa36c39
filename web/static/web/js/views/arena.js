// One arena: its window and points table, "play the next deal", the player's own deals,
// and the live standings (points, deals, hints marked "aided").

import * as api from "../api.js";
import { clock, h, replace, toast } from "../dom.js";
import { plural, t } from "../i18n.js";
import { ContestFeed } from "../live.js";
import { mountPlay } from "../play.js";
import { standingsTable } from "../standings.js";
import { clockOffset, pointsTable, problem, rulesets, rulesTitle, statusBadge } from "../widgets.js";

export const name = "arena";

export function mount(root, { id }) {
  const stops = [];
  let alive = true;
  stops.push(() => (alive = false));
  const page = h("div", { class: "arena" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.request(`/arenas/${encodeURIComponent(id)}`), rulesets()])
    .then(([{ data: arena, response }, rules]) => alive && render(page, arena, rules.byName[arena.rules], clockOffset(response), stops))
    .catch((error) => alive && replace(page, problem(error, { notFound: t("arena.not_found"), title: t("arena.unavailable") })));
  return () => stops.forEach((stop) => stop());
}

function render(page, initial, rules, offset, stops) {
  const me = api.session();
  let arena = initial;
  const status = h("span", { id: "arena-status" });
  const clockEl = h("time", { class: "countdown", id: "arena-clock" });
  const clockLabel = h("span", { class: "label" });
  const players = h("span", { id: "arena-players" });
  const head = h("div", { class: "panel race-head" },
    h("div", {}, h("h1", { text: arena.title || t("arena.by", { player: arena.creator || "?" }) }), h("p", { class: "muted" }, rulesTitle(rules), " · ", players)),
    arena.code ? h("div", { class: "race-code" }, h("span", { class: "label", text: t("arena.code") }), h("strong", { id: "arena-code", text: arena.code }),
      h("input", { class: "share-link", id: "arena-link", readonly: true, value: `${location.origin}/arenas/${arena.code}`, "aria-label": t("races.link") })) : null,
    h("div", { class: "daily-clock" }, status, clockLabel, clockEl),
  );
  const main = h("div", { class: "race-main" });
  const mine = h("section", { class: "panel", id: "my-deals", "aria-labelledby": "my-deals-title" });
  const table = standingsTable("arena", { running: arena.status === "running", offset }, {
    title: t("arena.standings"),
    me: me?.username,
    note: t("arena.standings_note"),
    player: (s) => h("a", { href: `/players/${encodeURIComponent(s.player)}`, class: "player", text: s.player }),
  });
  stops.push(table.stop);
  const side = h("div", { class: "race-side" }, table.el, h("section", { class: "panel", "aria-labelledby": "points-title" }, h("h2", { id: "points-title", text: t("arena.points_table") }), pointsTable(arena.points)));
  replace(page, head, h("div", { class: "daily-body" }, h("div", {}, main, mine), side));

  const tick = () => {
    const now = Date.now() + offset;
    const target = arena.status === "scheduled" ? arena.starts_at : arena.ends_at;
    clockLabel.textContent = arena.status === "finished" ? "" : t(arena.status === "scheduled" ? "races.starts_in" : "races.ends_in");
    clockEl.textContent = arena.status === "finished" ? "" : clock(new Date(target) - now);
  };
  const timer = setInterval(tick, 1000);
  stops.push(() => clearInterval(timer));
  let stopPlay = null;
  stops.push(() => stopPlay?.());

  function show() {
    replace(status, statusBadge({ status: arena.status }));
    players.textContent = plural("arena.players", arena.players);
    table.set({ running: arena.status === "running" });
    tick();
    if (stopPlay) return; // a deal in play stays on the board
    if (arena.status !== "running") {
      replace(main, h("div", { class: "panel join" }, h("p", { text: arena.status === "scheduled" ? t("arena.not_yet") : t("arena.over") })));
    } else if (!me) {
      replace(main, h("div", { class: "panel join" }, h("p", { text: t("arena.signin_to_play") }), h("a", { href: `/signin?next=/arenas/${arena.id}`, class: "btn btn-primary", text: t("nav.signin") })));
    } else {
      const next = h("button", { type: "button", class: "btn btn-gold btn-wide", id: "next-deal", text: t("arena.play_next") });
      next.addEventListener("click", () => playNext(next));
      replace(main, h("div", { class: "panel join" }, h("p", { class: "muted", text: t("arena.play_text") }), next));
    }
  }

  async function playNext(button) {
    button.disabled = true;
    try {
      const game = await api.post(`/arenas/${arena.id}/play`);
      main.replaceChildren();
      stopPlay = mountPlay(main, game, rules, {
        kind: "arena",
        heading: false,
        onFinished: (done) => {
          toast(t("races.deal_done", { n: done.round, status: t(`status.${done.status}`) }));
          stopPlay?.();
          stopPlay = null;
          show();
          loadMine();
        },
      });
    } catch (error) {
      button.disabled = false;
      toast(error.detail || t("error.network"), "error");
    }
  }

  async function loadMine() {
    if (!me) return mine.remove();
    try {
      const { results } = await api.arenaGames(arena.id);
      const own = results.filter((g) => g.owner === me.username).sort((a, b) => a.round - b.round);
      replace(mine, h("h2", { id: "my-deals-title", text: t("arena.my_deals") }),
        own.length
          ? h("ul", { class: "game-list" }, own.map((g) => h("li", { class: "game-row" }, h("a", { href: `/games/${g.id}`, class: "game-link", "data-round": g.round },
              h("span", { class: "game-title", text: t("races.deal", { n: g.round }) }),
              h("span", { class: "game-stats" }, statusBadge(g), h("span", { class: "stat", text: `${g.removed.length}/${rules.sequences_to_win} ${t("stats.sequences_short")}` }))))))
          : h("p", { class: "muted", text: t("arena.no_deals") }));
    } catch {
      // the deals show again on the next finish
    }
  }

  const feed = new ContestFeed("arenas", arena.id, {
    contest: (next) => {
      arena = next;
      show();
    },
    standings: (results, arrived) => table.update(results, arrived),
    start: (next) => {
      arena = next;
      show();
    },
    finish: (next, final) => {
      arena = next;
      table.update(final);
      show();
    },
    status: (state) => table.status(state),
  });
  stops.push(() => feed.close());
  show();
  loadMine();
  // A deal left in play (another tab, a reload) is taken up again.
  if (me && arena.status === "running") {
    api.arenaGames(arena.id).then(({ results }) => {
      const playing = results.find((g) => g.owner === me.username && g.status === "playing");
      if (playing && !stopPlay) {
        main.replaceChildren();
        stopPlay = mountPlay(main, playing, rules, { kind: "arena", heading: false, onFinished: () => { stopPlay?.(); stopPlay = null; show(); loadMine(); } });
      }
    }).catch(() => {});
  }
}
