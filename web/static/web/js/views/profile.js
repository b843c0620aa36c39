// A player's record (GET /players/{username}) and their games.

import * as api from "../api.js";
import { clock, h, replace } from "../dom.js";
import { num, t } from "../i18n.js";
import { gameRow, problem, rulesets } from "../widgets.js";

export const name = "profile";

export function mount(root, { name: username }) {
  let alive = true;
  const page = h("div", { class: "profile" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.player(username), rulesets(), api.gamesPage({ owner: username, limit: 20 })])
    .then(([stats, rules, games]) => {
      if (!alive) return;
      const tile = (label, value, id) => h("div", { class: "tile" }, h("span", { class: "tile-value", id, text: value }), h("span", { class: "tile-label", text: label }));
      replace(
        page,
        h("section", { class: "panel" },
          h("h1", { class: "player-name", id: "player-name", text: stats.username }),
          h("div", { class: "tiles" },
            tile(t("profile.played"), num(stats.played), "played"),
            tile(t("profile.won"), num(stats.won), "won"),
            tile(t("profile.win_rate"), num(stats.win_rate, { style: "percent", maximumFractionDigits: 0 }), "win-rate"),
            tile(t("profile.streak"), num(stats.streak), "streak"),
            tile(t("profile.best_streak"), num(stats.best_streak), "best-streak"),
            tile(t("profile.best_time"), stats.best_time_ms == null ? "—" : clock(stats.best_time_ms), "best-time"),
          ),
          h("p", { class: "muted small", text: t("profile.streak_note") }),
        ),
        h("section", { class: "panel" },
          h("h2", { text: t("profile.games") }),
          games.results.length
            ? h("ul", { class: "game-list" }, games.results.map((g) => gameRow(g, { showOwner: false }, rules.byName)))
            : h("p", { class: "muted", text: t("lobby.no_games") }),
        ),
      );
    })
    .catch((error) => alive && replace(page, problem(error, { notFound: t("profile.not_found"), title: t("profile.not_found") })));
  return () => (alive = false);
}
