// A player's statistics in one ruleset (GET /players/{name}/stats/{rules}): games, wins and
// the win rate over finished games, the current and best streaks, the average and best
// times, the hardest deal won, and the rating's history as an SVG chart.

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { num, plural, t } from "../i18n.js";
import { ratingChart } from "../chart.js";
import { navigate } from "../router.js";
import { metricValue, problem, ratingText, rulesets, rulesTitle } from "../widgets.js";

export const name = "stats";

const percent = (rate) => num(rate, { style: "percent", maximumFractionDigits: 0 });

export function mount(root, { name: username, rules: rulesName }) {
  let alive = true;
  const page = h("div", { class: "profile stats" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  const path = (rules) => `/players/${encodeURIComponent(username)}/stats/${encodeURIComponent(rules)}`;
  Promise.all([api.get(path(rulesName)), rulesets(), api.ratingHistory(username, rulesName).catch(() => null)])
    .then(([stats, rules, rating]) => {
      if (!alive) return;
      const title = rulesTitle(rules.byName[stats.rules] || { name: stats.rules, title: stats.rules });
      const tile = (label, value, id, link = null) => h("div", { class: "tile" },
        link ? h("a", { href: `/games/${link}`, class: "tile-value", id, text: value }) : h("span", { class: "tile-value", id, text: value }),
        h("span", { class: "tile-label", text: label }));
      const choose = h("select", { id: "stats-rules", class: "select", "aria-label": t("lobby.ruleset") },
        rules.list.map((r) => h("option", { value: r.name, selected: r.name === stats.rules || undefined, text: rulesTitle(r) })));
      choose.addEventListener("change", () => navigate(path(choose.value)));
      const hardest = stats.hardest_win;
      const points = (rating?.history || []).map((p) => p.rating).reverse();
      replace(
        page,
        h("section", { class: "panel", "aria-labelledby": "stats-title" },
          h("p", { class: "small" }, h("a", { href: `/players/${encodeURIComponent(stats.username)}`, id: "stats-profile", text: stats.username })),
          h("h1", { id: "stats-title", text: t("stats.title", { rules: title }) }),
          h("div", { class: "option-row" }, h("label", { for: "stats-rules", text: t("lobby.ruleset") }), choose),
          h("div", { class: "tiles" },
            tile(t("profile.played"), num(stats.played), "stats-played"),
            tile(t("stats.finished"), num(stats.finished), "stats-finished"),
            tile(t("profile.won"), num(stats.won), "stats-won"),
            tile(t("profile.win_rate"), percent(stats.win_rate), "stats-win-rate"),
            tile(t("profile.streak_rules"), num(stats.streak), "stats-streak"),
            tile(t("profile.best_streak"), num(stats.best_streak), "stats-best-streak"),
            tile(t("stats.average_time"), metricValue("best_time", stats.average_time_ms), "stats-average"),
            tile(t("profile.best_time"), metricValue("best_time", stats.best_time_ms), "stats-best-time"),
            tile(t("stats.hardest"), hardest ? t("stats.hardest_value", { label: t(`difficulty.${hardest.label}`), difficulty: num(hardest.difficulty, { maximumFractionDigits: 2 }) }) : "—", "stats-hardest", hardest?.game),
          ),
          h("p", { class: "muted small", text: t("stats.note") }),
        ),
        h("section", { class: "panel", "aria-labelledby": "stats-rating-title" },
          h("h2", { id: "stats-rating-title", text: t("rating.title") }),
          points.length
            ? [h("p", { class: "rating-now" }, h("span", { class: "rating-value", id: "stats-rating", text: ratingText(rating.rating, rating.provisional) }),
                h("span", { class: "muted small", text: ` ${plural("rating.games", rating.games)}` })),
               ratingChart(points, { label: title, id: "stats-chart" })]
            : h("p", { class: "muted", id: "stats-no-rating", text: t("rating.none") }),
        ),
      );
    })
    .catch((error) => alive && replace(page, problem(error, { notFound: t("profile.not_found", { name: username }), title: t("profile.unknown_title") })));
  return () => (alive = false);
}
