// The daily race: your own board next to the live standings (WebSocket) and a countdown to
// the end of the UTC day. Once the day is over: its difficulty and its solution on a replay
// board, each player's replay from the standings, and the deal to play again, unranked.

import * as api from "../api.js";
import { h, replace, toast } from "../dom.js";
import { num, plural, t } from "../i18n.js";
import { StandingsFeed } from "../live.js";
import { mountPlay } from "../play.js";
import { navigate } from "../router.js";
import { mountSolution } from "../solution.js";
import { standingsTable } from "../standings.js";
import { verdictAt } from "../analysis.js";
import { clockOffset, countdown, problem, ratingText, rulesets } from "../widgets.js";

export const name = "daily";

export function mount(root, { date }) {
  const stops = [];
  let alive = true;
  stops.push(() => (alive = false));
  const page = h("div", { class: "daily" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.request(`/challenges/${date || "today"}`), rulesets()])
    .then(([{ data: day, response }, rules]) => {
      if (alive) render(page, day, rules.byName[day.rules], clockOffset(response), stops);
    })
    .catch((error) => alive && replace(page, problem(error, { notFound: t("daily.no_challenge"), title: t("daily.no_challenge_title") })));
  return () => stops.forEach((stop) => stop());
}

function render(page, day, rules, offset, stops) {
  const me = api.session();
  const open = day.status === "open";
  const left = h("time", { class: "countdown", id: "race-countdown" });
  const participants = h("span", { id: "participants", text: plural("daily.participants", day.participants) });
  const head = h(
    "div",
    { class: "daily-head panel" },
    h("div", {},
      h("h1", { text: open ? t("daily.title") : t("daily.title_of", { date: day.date }) }),
      h("p", { class: "muted" }, `${day.date} · `, participants,
        day.difficulty ? [" · ", h("span", { class: `tag difficulty difficulty-${day.difficulty}`, id: "difficulty", text: t(`difficulty.${day.difficulty}`) })] : null),
    ),
    open
      ? h("div", { class: "daily-clock" }, h("span", { class: "label", text: t("daily.ends_in") }), left)
      : h("div", { class: "daily-clock" }, h("span", { class: "badge badge-closed", text: t("daily.closed") }), h("a", { href: "/archive", class: "small", text: t("archive.link") })),
  );
  if (open) stops.push(countdown(left, day.ends_at, offset, () => setTimeout(() => navigate(`/daily/${day.date}`, { replace: true }), 1500)));
  const mine = h("div", { class: "daily-board" });
  const table = standingsTable("daily", { goal: rules.sequences_to_win, running: open, offset }, {
    me: me?.username,
    note: open ? t("daily.live_note") : t("daily.replay_note"),
    player: (s) => open
      ? h("a", { href: `/players/${encodeURIComponent(s.player)}`, class: "player", text: s.player })
      : h("button", { type: "button", class: "link player", "data-player": s.player, text: s.player, title: t("daily.open_replay"), onclick: () => openReplay(s.player, day.date) }),
  });
  stops.push(table.stop);
  replace(page, head, h("div", { class: "daily-body" }, mine, table.el));
  const counted = (results) => (participants.textContent = plural("daily.participants", Math.max(results.length, day.participants)));

  if (open) {
    const feed = new StandingsFeed(day.date, {
      onStandings: (results, arrived) => {
        table.update(results, arrived);
        counted(results);
      },
      onStatus: (status) => table.status(status),
    });
    stops.push(() => feed.close());
  } else {
    table.status("closed");
    api.standings(day.date).then(({ results }) => table.update(results)).catch(() => {});
  }

  if (!open) return renderClosed(mine, day, rules, me, stops);
  if (!me || me.guest) {
    // The daily is rated: it needs an account (a guest signs up, keeping their games).
    replace(mine, h("div", { class: "panel join" },
      h("p", { id: "daily-account", text: t(me ? "daily.guest_signup" : "daily.signin_to_race") }),
      h("a", { href: me ? "/signin?mode=signup&next=/daily" : "/signin?next=/daily", class: "btn btn-primary", text: me ? t("account.guest_signup") : t("nav.signin") }),
    ));
    return;
  }
  findMyGame(me.username, day.date).then((game) => {
    if (!page.isConnected) return;
    if (game && game.status === "playing") {
      stops.push(mountPlay(mine, game, rules));
    } else if (game) {
      const streak = h("p", { id: "daily-streak" });
      replace(mine, h("div", { class: "panel join" },
        h("p", { text: t("daily.your_result", { status: t(`status.${game.status}`), score: num(game.score), moves: plural("stats.moves_n", game.moves) }) }),
        streak,
        h("p", { class: "muted", id: "verdict-at", text: verdictAt(day.date) }),
        h("a", { href: `/games/${game.id}`, class: "btn", text: t("daily.your_game") }),
      ));
      api.player(me.username).then((record) => (streak.textContent = t("daily.streak_now", { days: plural("daily.streak_days", record.streak), best: num(record.best_streak) }))).catch(() => {});
    } else {
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
      // Rated, and what a win and a loss would change, said before the first card is seen.
      const stakes = h("p", { class: "stakes", id: "daily-stakes" }, h("span", { class: "tag tag-rated", text: t("rating.rated_tag") }), " ", t("daily.rated_text"));
      api.get(`/challenges/${day.date}/stakes`).then((s) => {
        if (!s.rated) return;
        const signed = (v) => (v >= 0 ? `+${num(Math.round(v))}` : `−${num(Math.round(-v))}`);
        stakes.append(" ", h("span", { id: "stakes-changes", text: t("daily.stakes", { win: signed(s.win), loss: signed(s.loss), rating: ratingText(s.rating, s.provisional) }) }));
      }).catch(() => {});
      replace(mine, h("div", { class: "panel join" }, h("h2", { text: t("daily.same_deal") }), stakes, h("p", { class: "muted", text: t("daily.rules_text") }), join));
    }
  });
}

/** A closed day: the player's result, the deal to play again (unranked), the solution. */
function renderClosed(mine, day, rules, me, stops) {
  const again = h("button", { type: "button", class: "btn", id: "play-unranked", text: t("daily.play_unranked") });
  again.addEventListener("click", async () => {
    if (!me) return navigate(`/signin?next=/daily/${day.date}`);
    again.disabled = true;
    try {
      const game = await api.post("/games", { rules: day.rules, seed: day.seed, public: false });
      navigate(`/games/${game.id}`);
    } catch (error) {
      again.disabled = false;
      toast(error.detail || t("error.network"), "error");
    }
  });
  const watch = h("button", { type: "button", class: "btn btn-primary", id: "show-solution", text: t("solution.show") });
  const result = h("p", { id: "my-result", text: t("daily.over_text") });
  const panel = h("div", { class: "panel join closed-day" }, result,
    h("div", { class: "button-row" }, day.solution ? watch : null, day.seed != null ? again : null),
    h("p", { class: "muted small", text: t("daily.unranked_note") }));
  replace(mine, panel);
  // The solution takes the panel's place, so that its board has the room to be read.
  watch.addEventListener("click", () => {
    panel.remove();
    stops.push(mountSolution(mine, day, rules, { extra: day.seed != null ? again : null }));
  });
  if (me) {
    findMyGame(me.username, day.date).then((game) => {
      if (game) result.textContent = t("daily.your_result", { status: t(`status.${game.status === "playing" ? "unfinished" : game.status}`), score: num(game.score), moves: plural("stats.moves_n", game.moves) });
    }).catch(() => {});
  }
}

/** The player's game of `date`, if any (the archive names the caller's own; others' are
 *  found among their games, which the API lists by owner). */
async function findMyGame(owner, date) {
  const me = api.session();
  if (me && me.username === owner) {
    const { results } = await api.month(date.slice(0, 7));
    const found = results.find((d) => d.date === date)?.mine;
    return found ? api.game(found.game) : null;
  }
  let page = await api.gamesPage({ owner, limit: 200 });
  for (;;) {
    const found = page.results.find((g) => g.challenge === date && g.owner === owner);
    if (found) return found;
    const oldest = page.results[page.results.length - 1];
    if (!page.next || !oldest || oldest.created_at.slice(0, 10) < date) return null;
    page = await api.gamesPage({}, page.next);
  }
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
