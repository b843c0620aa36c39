// A game's page: the owner plays it; anyone else watches it live; a finished game (and any
// game of a day that is over) opens as a replay.

import * as api from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { mountPlay } from "../play.js";
import { mountReplay } from "../replay.js";
import { mountWatch } from "../watch.js";
import { problem, rulesets } from "../widgets.js";

export const name = "game";

export function mount(root, { id }) {
  const stops = [];
  const page = h("div", { class: "game-page" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  let alive = true;
  stops.push(() => (alive = false));
  Promise.all([api.game(id), rulesets()])
    .then(([game, rules]) => {
      if (!alive) return;
      const me = api.session();
      const ruleset = rules.byName[game.rules];
      page.replaceChildren();
      // A daily game whose day is over is a replay, finished or not: the race is over.
      const raceOver = game.challenge && game.challenge < new Date().toISOString().slice(0, 10);
      if (raceOver || game.status !== "playing") stops.push(mountReplay(page, game, ruleset));
      else if (me && game.owner === me.username) stops.push(mountPlay(page, game, ruleset));
      else stops.push(mountWatch(page, game, ruleset));
    })
    .catch((error) => alive && page.replaceChildren(problem(error)));
  return () => stops.forEach((stop) => stop());
}
