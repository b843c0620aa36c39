// A game's page: the owner plays it; anyone else watches it live; a finished game (and any
// game of a day that is over) opens as a replay.

import * as api from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { problem, rulesets } from "../widgets.js";

// Only the one way of showing the game that it needs is loaded: a player's first view does
// not fetch the spectator's or the replay's code. The likely one is asked for at once,
// beside the game itself (signed in: playing one's own game; anonymous: watching).
const WAYS = {
  play: () => import("../play.js").then((m) => m.mountPlay),
  watch: () => import("../watch.js").then((m) => m.mountWatch),
  replay: () => import("../replay.js").then((m) => m.mountReplay),
};

export const name = "game";

export function mount(root, { id }) {
  const stops = [];
  const page = h("div", { class: "game-page" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  let alive = true;
  stops.push(() => (alive = false));
  const me = api.session();
  const likely = WAYS[me ? "play" : "watch"]();
  likely.catch(() => {});
  let stop = null;
  const show = async (game, rules) => {
    // A daily game whose day is over is a replay, finished or not: the race is over.
    const raceOver = game.challenge && game.challenge < new Date().toISOString().slice(0, 10);
    const way = raceOver || game.status !== "playing" ? "replay" : me && game.owner === me.username ? "play" : "watch";
    const mount = await WAYS[way]();
    if (!alive) return;
    stop?.();
    page.replaceChildren();
    stop = mount(page, game, rules.byName[game.rules]);
  };
  // The game is most often in the shell already, as the API answers an anonymous reader,
  // which is what every reader but staff gets. When its cards are masked, a signed-in
  // visitor asks for their own copy once the board is drawn (so the request takes no
  // connection the modules need) and the board is drawn again only if that copy shows
  // more (staff see the hidden cards).
  const fromShell = api.isCarried(`/games/${encodeURIComponent(id)}`);
  Promise.all([api.game(id), rulesets()])
    .then(async ([game, rules]) => {
      await show(game, rules);
      if (!fromShell || !me || "reserve_cards" in game) return;
      const mine = await api.game(id).catch(() => null);
      if (alive && mine && "reserve_cards" in mine) await show(mine, rules);
    })
    .catch((error) => alive && page.replaceChildren(problem(error)));
  return () => {
    stop?.();
    stops.forEach((s) => s());
  };
}
