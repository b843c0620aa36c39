// A game watched live: its snapshot, then each event as it happens (resumed with ?after=N
// after a drop), the move list and how many watch. Used by a game's page and by TV.

import * as api from "./api.js";
import { Board } from "./board.js";
import { h, replace } from "./dom.js";
import { header, moveList, scorebar } from "./gamebits.js";
import { plural, t } from "./i18n.js";
import { GameFeed } from "./live.js";
import { navigate } from "./router.js";
import { problem } from "./widgets.js";

/**
 * Watch `initial` in `container`; returns a stop function. `onEnd(game)`, if given, is told
 * when the game finishes (TV moves on); otherwise the page offers its replay. `tags` are
 * extra heading tags (TV's).
 */
export function mountWatch(container, initial, rules, { onEnd, tags = [] } = {}) {
  let game = initial;
  const score = scorebar(rules);
  const board = new Board({ rules, label: t("board.watch_label") });
  const connection = h("span", { class: "conn", id: "connection", role: "status" });
  const watching = h("span", { class: "tag tag-live", id: "watchers", hidden: true });
  const history = moveList();
  const over = h("div", { class: "banner", id: "banner", hidden: true });
  const page = h("div", { class: "watch" },
    h("div", { class: "watch-main" }, header(game, rules, [...tags, watching, connection]), h("div", { class: "bar" }, score.el), over, board.el),
    history.el,
  );
  container.append(page);
  const setStatus = (status) => {
    connection.className = `conn conn-${status}`;
    connection.textContent = t(`conn.${status}`);
  };
  // The board first (the score bar first of all: the board fits the room it leaves); the
  // requests for the history and the live feed only then, so the first board waits on
  // neither.
  score.update(game);
  board.update(game);
  // The history so far (each move names its card), then live frames; the list keys entries
  // by seq, so none shows twice.
  api.events(game.id).then((events) => {
    for (const event of events) if (event.seq <= (feed.version ?? game.version)) history.add(event, null);
  }).catch(() => {});
  const me = api.session();
  const feed = new GameFeed(game.id, {
    ticket: !game.public && me && me.username === game.owner ? api.wsTicket : null,
    onStatus: setStatus,
    onWatchers: (count) => {
      watching.hidden = false;
      watching.textContent = plural("watch.count", count);
    },
    onFatal: (code) => replace(container, problem(new api.ApiError(code - 4000, { code: code === 4403 ? "private_game" : "not_found", detail: t("game.unavailable") }))),
    onGame: (next, event, arrived) => {
      const previous = game;
      game = next;
      score.update(game);
      board.update(game, { event, previous });
      if (event) {
        history.add(event, previous);
        // Measured once laid out as it will be painted (bench/web.py reads these).
        board.el.getBoundingClientRect();
        performance.measure("scorpion:frame-to-board", { start: arrived, end: performance.now() });
      }
      if (game.status !== "playing") ended();
    },
  });
  function ended() {
    if (onEnd) return onEnd(game);
    over.hidden = false;
    replace(over, h("span", { text: t(`end.watch_${game.status}`, { player: game.owner }) + " " }),
      h("a", { href: `/games/${game.id}`, class: "btn btn-small", id: "open-replay", text: t("end.open_replay"), onclick: (e) => { e.preventDefault(); navigate(`/games/${game.id}`, { replace: true }); } }));
  }
  return () => {
    feed.close();
    score.stop();
    board.destroy();
    page.remove();
  };
}
