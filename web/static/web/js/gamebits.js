// Pieces of every page that shows a game: its heading, the score bar, the list of moves and
// the sentence that describes an event (with the card it moved, in every list).

import * as api from "./api.js";
import { cardName, short } from "./cards.js";
import { clock, h, modal, replace, toast } from "./dom.js";
import { num, t } from "./i18n.js";
import { navigate } from "./router.js";
import { rulesTitle, statusBadge } from "./widgets.js";

/** The game's title: its ruleset and its player, and tags (daily, race, live, …). */
export function header(game, rules, extra = []) {
  return h(
    "div",
    { class: "game-head" },
    h("h1", { class: "game-name" },
      h("span", { text: rulesTitle(rules) }),
      h("span", { class: "muted by" }, " · ", h("a", { href: `/players/${encodeURIComponent(game.owner)}`, class: "owner", text: game.owner })),
    ),
    h("div", { class: "head-tags" },
      game.challenge ? h("span", { class: "tag", text: t("lobby.daily_tag", { date: game.challenge }) }) : null,
      // A certified deal's difficulty names no card: shown from the first move on.
      game.certified
        ? h("span", {
            class: `tag difficulty difficulty-${game.certified.label}`,
            id: "certified",
            title: t("difficulty.title", { difficulty: num(game.certified.difficulty, { maximumFractionDigits: 2 }) }),
            text: t("difficulty.tag", { label: t(`difficulty.${game.certified.label}`) }),
          })
        : null,
      game.rated ? h("span", { class: "tag tag-rated", id: "rated-tag", text: t("rating.rated_tag") }) : null,
      // A game of the player's own choosing (a seed, a deal, "play this deal") is casual.
      !game.rated && !game.challenge && !game.contest
        ? h("span", { class: "tag tag-casual", id: "casual-tag", title: t("game.casual_title"), text: t("game.casual_tag") })
        : null,
      extra),
  );
}

/** Start a game (`POST /games` with `body`). A rated deal is dealt once, ever: when none of
 *  the ruleset is ready (503 pool_empty), or no winnable deal is for a "winnable only"
 *  game, the player is offered a casual game of the ruleset instead. The game started, or null if they declined. */
export async function startGame(body) {
  try {
    return await api.post("/games", body);
  } catch (error) {
    if (!(body.rated || body.winnable) || !(error instanceof api.ApiError) || error.code !== "pool_empty") throw error;
    const answer = await modal({
      title: t(body.rated ? "pool.empty_title" : "pool.empty_winnable_title"),
      body: [h("p", { id: "pool-empty", text: t(body.rated ? "pool.empty_text" : "pool.empty_winnable") })],
      buttons: [
        { label: t("pool.casual"), value: "casual", primary: true },
        { label: t("end.lobby"), value: "lobby" },
      ],
    });
    if (answer !== "casual") return null;
    const { rated, winnable, ...casual } = body;
    return api.post("/games", casual);
  }
}

/** Score, moves, sequences, time and status; `update(game)` refreshes it. The clock runs
 *  from `game.created_at` to `finished_at` (or now). */
export function scorebar(rules) {
  const cells = {};
  const item = (key, label) => {
    cells[key] = h("span", { class: "value", id: `stat-${key}` });
    return h("div", { class: "scoreitem" }, h("span", { class: "label", text: label }), cells[key]);
  };
  const el = h("div", { class: "scorebar", role: "group", "aria-label": t("stats.label") },
    item("score", t("stats.score")),
    item("moves", t("stats.moves")),
    item("sequences", t("stats.sequences")),
    item("time", t("stats.time")),
    h("div", { class: "scoreitem status-item" }, h("span", { class: "label", text: t("stats.status") }), (cells.status = h("span", { class: "value", id: "stat-status" }))),
  );
  let game = null;
  const tick = () => {
    if (!game) return;
    const end = game.finished_at ? new Date(game.finished_at) : new Date();
    cells.time.textContent = clock(end - new Date(game.created_at));
  };
  const timer = setInterval(tick, 1000);
  return {
    el,
    update(next) {
      game = next;
      cells.score.textContent = num(next.score);
      cells.moves.textContent = num(next.moves);
      cells.sequences.textContent = `${next.removed.length}/${rules.sequences_to_win}`;
      replace(cells.status, statusBadge(next));
      tick();
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A one-line description of an event, for the move list and for screen readers. A move
 * names its card: from the event itself (the API's events pages carry it) or else from the
 * game as it was before (`previous`, a live frame's last game).
 */
export function describe(event, previous = null) {
  const d = event.data || {};
  if (event.type === "moved") {
    const code = event.card || (previous && (d.cell ? previous.cells?.[d.cell - 1] : previous.columns[d.from - 1]?.[d.index]));
    const from = d.cell ? t("board.cell", { n: d.cell }) : String(d.from);
    const card = code ? short(code) + " " : "";
    return {
      text: `${card}${from} → ${d.to}`,
      spoken: code ? t("event.moved_card", { card: cardName(code), to: d.to }) : t("event.moved", { from, to: d.to }),
    };
  }
  const text = t(`event.${event.type}`);
  return { text, spoken: text };
}

/** The list of a game's events (each seq once), with the current one highlighted. */
export function moveList() {
  const list = h("ol", { class: "move-list", id: "move-list", "aria-label": t("game.moves_list") });
  const panel = h("aside", { class: "panel history" }, h("h2", { text: t("game.history") }), list);
  return {
    el: panel,
    list,
    add(event, previous) {
      if (list.querySelector(`[data-seq="${event.seq}"]`)) return; // never twice
      const { text, spoken } = describe(event, previous);
      const item = h("li", { "data-seq": event.seq, class: `ev ev-${event.type}`, title: spoken }, h("span", { class: "seq", text: event.seq }), h("span", { text }));
      const after = [...list.children].find((other) => Number(other.dataset.seq) > event.seq);
      list.insertBefore(item, after || null);
      if (after) return; // an older entry arriving late: the latest stays current
      list.querySelector(".current")?.classList.remove("current");
      item.classList.add("current");
      // Scrolled at the next frame: reading scrollHeight now would lay the page out twice.
      requestAnimationFrame(() => (list.scrollTop = list.scrollHeight));
    },
  };
}

/** "Play this deal": a finished game whose deal is public (its seed shows) offered as a
 *  casual game of the same deal, from its start (`POST /games` with the seed: never rated).
 *  Null when there is nothing to offer: a game still played, a deal still secret, or no
 *  one signed in to play it. */
export function playDealButton(game) {
  if (game.status === "playing" || game.seed == null || !api.session()) return null;
  const button = h("button", {
    type: "button",
    class: "btn btn-small play-deal",
    "data-play-deal": game.id,
    title: t("deal.play_help"),
    text: t("deal.play"),
    onclick: async () => {
      button.disabled = true;
      try {
        const next = await api.post("/games", { rules: game.rules, seed: game.seed, public: game.public });
        navigate(`/games/${next.id}`);
      } catch (error) {
        toast(error.detail || t("error.network"), "error");
        button.disabled = false;
      }
    },
  });
  return button;
}
