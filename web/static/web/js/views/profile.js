// A player's record (GET /players/{username}): totals, the dailies, each ruleset's record
// (played, won, win rate, best time, streaks), the rating in each ruleset with its history
// drawn as a chart, and their games.

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { num, plural, t } from "../i18n.js";
import { ratingChart } from "../chart.js";
import { playDealButton } from "../gamebits.js";
import { gameRow, metricValue, problem, ratingText, rulesets, rulesTitle } from "../widgets.js";

export const name = "profile";

const percent = (rate) => num(rate, { style: "percent", maximumFractionDigits: 0 });

export function mount(root, { name: username }) {
  let alive = true;
  const page = h("div", { class: "profile" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.player(username), rulesets(), api.gamesPage({ owner: username, limit: 20 })])
    .then(([stats, rules, games]) => {
      if (!alive) return;
      const tile = (label, value, id, link = null) => h("div", { class: "tile" },
        link ? h("a", { href: `/games/${link}`, class: "tile-value", id, text: value, title: t("profile.best_game") }) : h("span", { class: "tile-value", id, text: value }),
        h("span", { class: "tile-label", text: label }));
      const time = (ms) => metricValue("best_time", ms);
      const best = (record) => record.best_game ? h("a", { href: `/games/${record.best_game}`, text: time(record.best_time_ms), title: t("profile.best_game") }) : time(record.best_time_ms);
      const daily = stats.daily;
      replace(
        page,
        h("section", { class: "panel" },
          h("h1", { class: "player-name", id: "player-name", text: stats.username }),
          h("div", { class: "tiles" },
            tile(t("profile.played"), num(stats.played), "played"),
            tile(t("profile.won"), num(stats.won), "won"),
            tile(t("profile.win_rate"), percent(stats.win_rate), "win-rate"),
            tile(t("profile.best_time"), time(stats.best_time_ms), "best-time", stats.best_game),
          ),
          h("p", { class: "muted small", text: `${t("profile.win_rate_note")} ${t("profile.best_time_note")}` }),
        ),
        h("section", { class: "panel", "aria-labelledby": "daily-record" },
          h("h2", { id: "daily-record", text: t("profile.dailies") }),
          h("div", { class: "tiles" },
            tile(t("profile.days_played"), num(daily.played), "daily-played"),
            tile(t("profile.days_won"), num(daily.won), "daily-won"),
            tile(t("profile.streak"), num(stats.streak), "streak"),
            tile(t("profile.best_streak"), num(stats.best_streak), "best-streak"),
            tile(t("profile.best_daily"), time(daily.best_time_ms), "best-daily", daily.best_game),
          ),
          h("p", { class: "muted small", text: t("profile.streak_note") }),
        ),
        h("section", { class: "panel", "aria-labelledby": "rules-record" },
          h("h2", { id: "rules-record", text: t("profile.by_rules") }),
          stats.rulesets.length
            ? h("div", { class: "table-wrap" }, h("table", { class: "table", id: "rules-stats" },
                h("thead", {}, h("tr", {},
                  h("th", { scope: "col", text: t("lobby.ruleset") }),
                  [["profile.played"], ["profile.won"], ["profile.win_rate"], ["profile.best_time"], ["profile.streak_rules"], ["profile.best_streak"]].map(([label]) => h("th", { scope: "col", class: "num", text: t(label) })),
                )),
                h("tbody", {}, stats.rulesets.map((r) => h("tr", { "data-rules": r.rules },
                  h("th", { scope: "row" }, h("a", { href: `/players/${encodeURIComponent(stats.username)}/stats/${r.rules}`, title: t("stats.open"), text: rulesTitle(rules.byName[r.rules] || { name: r.rules, title: r.rules }) })),
                  h("td", { class: "num", "data-col": "played", text: num(r.played) }),
                  h("td", { class: "num", "data-col": "won", text: num(r.won) }),
                  h("td", { class: "num", "data-col": "win-rate", text: percent(r.win_rate) }),
                  h("td", { class: "num", "data-col": "best-time" }, best(r)),
                  h("td", { class: "num", "data-col": "streak", text: num(r.streak) }),
                  h("td", { class: "num", "data-col": "best-streak", text: num(r.best_streak) }),
                ))),
              ))
            : h("p", { class: "muted", text: t("lobby.no_games") }),
        ),
        ratingsPanel(username, rules),
        h("section", { class: "panel" },
          h("h2", { text: t("profile.games") }),
          games.results.length
            ? h("ul", { class: "game-list" }, games.results.map((g) => gameRow(g, { showOwner: false, extra: playDealButton(g) }, rules.byName)))
            : h("p", { class: "muted", text: t("lobby.no_games") }),
        ),
      );
    })
    .catch((error) => alive && replace(page, problem(error, { notFound: t("profile.not_found", { name: username }), title: t("profile.unknown_title") })));
  return () => (alive = false);
}

/** The player's rating in each ruleset they played rated games of, each with its history
 *  (GET /players/{name}/ratings and …/ratings/{rules}); filled in as the answers come. */
function ratingsPanel(username, rules) {
  const body = h("div", { class: "ratings" }, h("p", { class: "muted", text: t("loading") }));
  const panel = h("section", { class: "panel", "aria-labelledby": "ratings-title" }, h("h2", { id: "ratings-title", text: t("rating.title") }), body);
  api.ratings(username)
    .then(async ({ ratings }) => {
      if (!ratings.length) return replace(body, h("p", { class: "muted", text: t("rating.none") }));
      const histories = await Promise.all(ratings.map((r) => api.ratingHistory(username, r.rules).catch(() => null)));
      replace(body, ratings.map((r, i) => {
        const title = rulesTitle(rules.byName[r.rules] || { name: r.rules, title: r.rules });
        const points = (histories[i]?.history || []).map((p) => p.rating).reverse();
        return h("div", { class: "rating-card", "data-rules": r.rules },
          h("h3", { text: title }),
          h("p", { class: "rating-now" },
            h("span", { class: "rating-value", id: `rating-${r.rules}`, text: ratingText(r.rating, r.provisional) }),
            h("span", { class: "muted small", text: ` ${t("rating.rd", { rd: num(Math.round(r.rd)) })} · ${plural("rating.games", r.games)}` }),
          ),
          r.provisional ? h("p", { class: "muted small", text: t("rating.provisional") }) : null,
          points.length ? ratingChart(points, { label: title, id: `chart-${r.rules}` }) : null,
        );
      }));
    })
    .catch(() => replace(body, h("p", { class: "muted", text: t("rating.unavailable") })));
  return panel;
}

