// The daily race: your own board next to the live standings (WebSocket) and a countdown to
// the end of the UTC day. Once the day is over, each player in the standings links to their
// replay.

import * as api from "../api.js";
import { clock, h, replace, toast } from "../dom.js";
import { num, t } from "../i18n.js";
import { StandingsFeed } from "../live.js";
import { navigate } from "../router.js";
import { clockOffset, countdown, problem, rulesets } from "../widgets.js";
import { mountPlay } from "./game.js";

export const name = "daily";

export function mount(root, { date }) {
  const stops = [];
  let alive = true;
  stops.push(() => (alive = false));
  const page = h("div", { class: "daily" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.request(`/challenges/${date || "today"}`), rulesets()])
    .then(([{ data: day, response }, rules]) => {
      if (!alive) return;
      render(page, day, rules.byName[day.rules], clockOffset(response), stops);
    })
    .catch((error) => alive && replace(page, problem(error)));
  return () => stops.forEach((stop) => stop());
}

function render(page, day, rules, offset, stops) {
  const me = api.session();
  const open = day.status === "open";
  const left = h("time", { class: "countdown", id: "race-countdown" });
  const participants = h("span", { id: "participants", text: t("daily.participants", { n: day.participants }) });
  const head = h(
    "div",
    { class: "daily-head panel" },
    h("div", {},
      h("h1", { text: open ? t("daily.title") : t("daily.title_of", { date: day.date }) }),
      h("p", { class: "muted" }, `${day.date} · `, participants),
    ),
    open
      ? h("div", { class: "daily-clock" }, h("span", { class: "label", text: t("daily.ends_in") }), left)
      : h("span", { class: "badge badge-closed", text: t("daily.closed") }),
  );
  if (open) stops.push(countdown(left, day.ends_at, offset, () => setTimeout(() => navigate(`/daily/${day.date}`, { replace: true }), 1500)));
  const mine = h("div", { class: "daily-board" });
  const table = standingsTable(day, open, (count) => (participants.textContent = t("daily.participants", { n: count })));
  replace(page, head, h("div", { class: "daily-body" }, mine, table.el));

  if (open) {
    const feed = new StandingsFeed(day.date, {
      onStandings: (results) => table.update(results),
      onStatus: (status) => table.status(status),
    });
    stops.push(() => feed.close());
  } else {
    api.standings(day.date).then(({ results }) => table.update(results)).catch(() => {});
  }

  if (!me) {
    replace(mine, h("div", { class: "panel join" },
      h("p", { text: open ? t("daily.signin_to_race") : t("daily.over_text") }),
      open ? h("a", { href: `/signin?next=/daily`, class: "btn btn-primary", text: t("nav.signin") }) : null,
    ));
    return;
  }
  findMyGame(me.username, day.date).then((game) => {
    if (!page.isConnected) return;
    if (game && game.status === "playing" && open) {
      stops.push(mountPlay(mine, game, rules));
    } else if (game) {
      replace(mine, h("div", { class: "panel join" },
        h("p", { text: t("daily.your_result", { status: t(`status.${game.status === "playing" && !open ? "unfinished" : game.status}`), score: num(game.score), moves: num(game.moves) }) }),
        h("a", { href: `/games/${game.id}`, class: "btn", text: open ? t("daily.your_game") : t("end.open_replay") }),
      ));
    } else if (open) {
      const join = h("button", { type: "button", class: "btn btn-gold btn-wide", id: "join-race", text: t("daily.start") });
      join.addEventListener("click", async () => {
        join.disabled = true;
        try {
          const game = await api.post(`/challenges/${day.date}/join`);
          replace(mine);
          stops.push(mountPlay(mine, game, rules));
        } catch (error) {
          join.disabled = false;
          toast(error.detail || t("error.network"), "error");
        }
      });
      replace(mine, h("div", { class: "panel join" }, h("h2", { text: t("daily.same_deal") }), h("p", { class: "muted", text: t("daily.rules_text") }), join));
    } else {
      replace(mine, h("div", { class: "panel join" }, h("p", { text: t("daily.over_text") })));
    }
  });
}

/** The player's game of `date`, if any (the API lists games by owner, not by challenge). */
async function findMyGame(owner, date) {
  let page = await api.gamesPage({ owner, rules: "classic", limit: 200 });
  for (;;) {
    const found = page.results.find((g) => g.challenge === date && g.owner === owner);
    if (found) return found;
    const oldest = page.results[page.results.length - 1];
    if (!page.next || !oldest || oldest.created_at.slice(0, 10) < date) return null;
    page = await api.gamesPage({}, page.next);
  }
}

function standingsTable(day, open, onCount) {
  const me = api.session();
  const body = h("tbody", {});
  const connection = h("span", { class: "conn", role: "status" });
  const el = h(
    "section",
    { class: "panel standings", "aria-labelledby": "standings-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "standings-title", text: t("daily.standings") }), open ? connection : null),
    h("div", { class: "table-wrap" }, h("table", { class: "table", id: "standings" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: t("daily.rank") }),
        h("th", { scope: "col", text: t("daily.player") }),
        [t("stats.sequences"), t("stats.score"), t("stats.moves"), t("stats.time")].map((label) => h("th", { scope: "col", class: "num", text: label })),
      )),
      body,
    )),
    h("p", { class: "muted small", text: open ? t("daily.live_note") : t("daily.replay_note") }),
  );
  let before = new Map();
  return {
    el,
    status(status) {
      connection.className = `conn conn-${status}`;
      connection.textContent = t(`conn.${status}`);
    },
    update(results) {
      const rows = results.map((s) => {
        const signature = `${s.status}:${s.moves}:${s.score}:${s.sequences}`;
        const changed = before.size && before.get(s.player) !== signature;
        const player = open
          ? h("a", { href: `/players/${encodeURIComponent(s.player)}`, class: "player", text: s.player })
          : h("button", { type: "button", class: "link player", "data-player": s.player, text: s.player, title: t("daily.open_replay"), onclick: () => openReplay(s.player, day.date) });
        const status = s.status === "playing" && !open ? "unfinished" : s.status;
        return h("tr", { class: `${me && me.username === s.player ? "me" : ""} ${changed ? "changed" : ""}`, "data-player": s.player },
          h("td", { class: "rank", text: s.rank }),
          h("td", {}, player, h("span", { class: `badge badge-${s.status}`, text: t(`status.${status}`) })),
          h("td", { class: "num", "data-col": "sequences", text: `${s.sequences}/4` }),
          h("td", { class: "num", "data-col": "score", text: num(s.score) }),
          h("td", { class: "num", "data-col": "moves", text: num(s.moves) }),
          h("td", { class: "num", "data-col": "time", text: s.elapsed_ms == null ? "—" : clock(s.elapsed_ms) }),
        );
      });
      before = new Map(results.map((s) => [s.player, `${s.status}:${s.moves}:${s.score}:${s.sequences}`]));
      replace(body, rows.length ? rows : h("tr", {}, h("td", { colspan: 6, class: "muted", text: t("daily.nobody") })));
      onCount(results.length);
    },
  };
}

async function openReplay(player, date) {
  try {
    const game = await findMyGame(player, date);
    if (game) navigate(`/games/${game.id}`);
    else toast(t("game.not_found"), "error");
  } catch (error) {
    toast(error.detail || t("error.network"), "error");
  }
}
