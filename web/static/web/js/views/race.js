// One race: its code and link to share, a live countdown, then each racer's deals with a
// switcher between them, live standings (hints marked "aided"), and once it is over the
// result table with every racer's replays. Everything live comes from the race's feed.

import * as api from "../api.js";
import { clock, h, replace, toast } from "../dom.js";
import { plural, t, when } from "../i18n.js";
import { ContestFeed } from "../live.js";
import { mountPlay } from "../play.js";
import { standingsTable } from "../standings.js";
import { clockOffset, problem, rulesets, rulesTitle, statusBadge } from "../widgets.js";

export const name = "race";

export function mount(root, { key }) {
  const stops = [];
  let alive = true;
  stops.push(() => (alive = false));
  const page = h("div", { class: "race" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.request(`/races/${encodeURIComponent(key)}`), rulesets(), api.raceStandings(key)])
    .then(([{ data: race, response }, rules, standings]) => {
      if (alive) render(page, race, rules.byName[race.rules], clockOffset(response), standings.results, stops);
    })
    .catch((error) => alive && replace(page, problem(error, { notFound: t("races.no_such_code"), title: t("races.unavailable") })));
  return () => stops.forEach((stop) => stop());
}

function render(page, initial, rules, offset, firstResults, stops) {
  const me = api.session();
  let race = initial;
  let results = firstResults;
  const joined = () => Boolean(me && results.some((s) => s.player === me.username));
  const link = `${location.origin}/races/${race.code}`;
  const status = h("span", { id: "race-status" });
  const clockEl = h("time", { class: "countdown", id: "race-clock" });
  const clockLabel = h("span", { class: "label" });
  const racers = h("span", { id: "racers" });
  const copy = h("button", { type: "button", class: "btn btn-small", id: "copy-link", text: t("races.copy") });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(link);
      toast(t("races.copied"));
    } catch {
      share.select(); // no clipboard here (plain http): the link is selected to copy by hand
    }
  });
  const share = h("input", { class: "share-link", id: "share-link", readonly: true, value: link, "aria-label": t("races.link") });
  const head = h("div", { class: "panel race-head" },
    h("div", {},
      h("h1", { text: race.title || t("races.by", { player: race.creator || "?" }) }),
      h("p", { class: "muted" }, rulesTitle(rules), " · ", plural("races.deals_n", race.deals), " · ", plural("races.minutes", Math.round(race.time_limit / 60)), " · ", racers),
    ),
    h("div", { class: "race-code" }, h("span", { class: "label", text: t("races.code") }), h("strong", { id: "code-shown", text: race.code }), h("div", { class: "inline" }, share, copy)),
    h("div", { class: "daily-clock" }, status, clockLabel, clockEl),
  );
  const main = h("div", { class: "race-main" });
  const table = standingsTable("race", { deals: race.deals, startsAt: race.starts_at, running: race.status === "running", offset }, {
    title: t("races.standings"),
    me: me?.username,
    note: t("races.standings_note"),
    player: (s) => h("a", { href: `/players/${encodeURIComponent(s.player)}`, class: "player", text: s.player }),
  });
  stops.push(table.stop);
  replace(page, head, h("div", { class: "daily-body" }, main, table.el));

  let timer = null;
  const tick = () => {
    const now = Date.now() + offset;
    if (race.status === "scheduled") {
      clockLabel.textContent = t("races.starts_in");
      clockEl.textContent = clock(new Date(race.starts_at) - now);
    } else if (race.status === "running") {
      clockLabel.textContent = t("races.ends_in");
      clockEl.textContent = clock(new Date(race.ends_at) - now);
    } else {
      clockLabel.textContent = "";
      clockEl.textContent = "";
    }
  };
  timer = setInterval(tick, 1000);
  stops.push(() => clearInterval(timer));

  let phase = null;
  let stopPlay = null;
  stops.push(() => stopPlay?.());
  function show() {
    replace(status, statusBadge({ status: race.status }));
    racers.textContent = plural("races.racers", Math.max(race.racers, results.length));
    table.set({ running: race.status === "running" });
    tick();
    if (phase === race.status && !(race.status === "scheduled")) return;
    phase = race.status;
    if (race.status === "scheduled") renderLobby();
    else if (race.status === "running") renderRunning();
    else renderFinished();
  }

  function renderLobby() {
    if (!me) {
      replace(main, h("div", { class: "panel join" }, h("p", { text: t("races.signin_to_join") }), h("a", { href: `/signin?next=/races/${race.code}`, class: "btn btn-primary", text: t("nav.signin") })));
    } else if (joined()) {
      replace(main, h("div", { class: "panel join" }, h("h2", { text: t("races.ready") }), h("p", { class: "muted", text: t("races.ready_text") })));
    } else {
      const join = h("button", { type: "button", class: "btn btn-gold btn-wide", id: "join-race", text: t("races.join_this") });
      join.addEventListener("click", async () => {
        join.disabled = true;
        try {
          race = await api.post(`/races/${race.code}/join`);
          results = [...results, { player: me.username }];
          phase = null;
          show();
        } catch (error) {
          join.disabled = false;
          if (error.code !== "race_started") return toast(error.detail || t("error.network"), "error");
          // It started as the player asked: the page says so and offers to watch it.
          race = { ...race, status: "running" };
          phase = null;
          show();
        }
      });
      replace(main, h("div", { class: "panel join" }, h("h2", { text: t("races.same_deals") }), h("p", { class: "muted", text: t("races.join_text") }), join));
    }
  }

  async function renderRunning() {
    if (!me || !joined()) {
      // Too late to join (the racers were sealed at the start): say so, and offer to watch.
      const watch = h("button", { type: "button", class: "btn btn-primary", id: "watch-race", text: t("races.watch") });
      watch.addEventListener("click", () => {
        table.el.scrollIntoView({ block: "start" });
        table.el.querySelector("h2")?.setAttribute("tabindex", "-1");
        table.el.querySelector("h2")?.focus();
      });
      replace(main, h("div", { class: "panel join", id: "race-started" },
        me ? [h("h2", { text: t("races.started_title") }), h("p", { text: t("races.started_text", { time: when(race.starts_at, { timeStyle: "short" }) }) })] : null,
        h("p", { class: "muted", text: t("races.watching") }),
        watch));
      return;
    }
    replace(main, h("p", { class: "muted loading", text: t("loading") }));
    let games;
    try {
      games = (await api.post(`/races/${race.code}/games`)).results;
    } catch (error) {
      replace(main, h("div", { class: "panel join" }, h("p", { text: error.detail || t("error.network") })));
      return;
    }
    if (phase !== "running") return;
    const board = h("div", { class: "race-board" });
    const switcher = h("div", { class: "deal-switcher", role: "tablist", "aria-label": t("races.deals") });
    replace(main, switcher, board);
    let current = games.findIndex((g) => g.status === "playing");
    if (current < 0) current = 0;
    const drawTabs = () => {
      replace(switcher, games.map((g, i) => h("button", {
        type: "button", role: "tab", class: "tab", id: `deal-${i + 1}`, "aria-selected": String(i === current), tabindex: i === current ? "0" : "-1",
        onclick: () => open(i),
      }, t("races.deal", { n: i + 1 }), " ", h("span", { class: `badge badge-${g.status}`, text: t(`status.${g.status}`) }))));
    };
    switcher.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      open((current + step + games.length) % games.length);
      switcher.querySelector('[aria-selected="true"]')?.focus();
    });
    const open = (i) => {
      current = i;
      drawTabs();
      stopPlay?.();
      stopPlay = null;
      const game = games[i];
      if (game.status !== "playing") {
        replace(board, h("div", { class: "panel join" }, h("p", { text: t("races.deal_done", { n: i + 1, status: t(`status.${game.status}`) }) })));
        return;
      }
      board.replaceChildren();
      stopPlay = mountPlay(board, game, rules, {
        kind: "race",
        heading: false,
        onChange: (next) => (games[i] = next),
        onFinished: (next) => {
          games[i] = next;
          const following = games.findIndex((g) => g.status === "playing");
          toast(t("races.deal_done", { n: i + 1, status: t(`status.${next.status}`) }));
          if (following >= 0) open(following);
          else drawTabs();
        },
      });
    };
    open(current);
  }

  async function renderFinished() {
    stopPlay?.();
    stopPlay = null;
    const list = h("div", { class: "panel", id: "race-replays" }, h("h2", { text: t("races.replays") }), h("p", { class: "muted", text: t("loading") }));
    replace(main, list);
    try {
      const { results: games } = await api.raceGames(race.code);
      const byPlayer = new Map();
      for (const game of games) byPlayer.set(game.owner, [...(byPlayer.get(game.owner) || []), game]);
      replace(list, h("h2", { text: t("races.replays") }), h("p", { class: "muted small", text: t("races.replays_note") }),
        h("ul", { class: "replays" }, [...byPlayer].map(([player, own]) => h("li", { "data-player": player },
          h("span", { class: "player", text: player }),
          own.sort((a, b) => a.round - b.round).map((game) => h("a", { href: `/games/${game.id}`, class: "btn btn-small", "data-round": game.round, "aria-label": t("races.replay_of", { player, n: game.round }) }, t("races.deal", { n: game.round }), " ", h("span", { class: `badge badge-${game.status}`, text: t(`status.${game.status}`) }))),
        ))));
    } catch (error) {
      replace(list, h("p", { class: "form-error", text: error.detail || t("error.network") }));
    }
  }

  const feed = new ContestFeed("races", race.id, {
    contest: (next) => {
      race = next;
      show();
    },
    countdown: () => tick(),
    standings: (next, arrived) => {
      const before = joined();
      results = next;
      table.update(results, arrived);
      if (race.status === "scheduled" && before !== joined()) phase = null;
      show();
    },
    start: (next) => {
      race = next;
      show();
    },
    finish: (next, final) => {
      race = next;
      results = final;
      table.update(final);
      show();
    },
    status: (state) => table.status(state),
  });
  stops.push(() => feed.close());
  table.update(results);
  show();
}
