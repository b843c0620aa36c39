// The leaderboards: tabs for the scope (the dailies and each ruleset), the metric and the
// period, a picker for a past week or month, the player's own row wherever they stand, and
// links to the best-time games that the player may read. The choice lives in the address.

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { t, when } from "../i18n.js";
import { metricValue, problem, rulesets, rulesTitle, tabs } from "../widgets.js";

export const name = "leaderboards";

export function mount(root, _params, query) {
  let alive = true;
  const page = h("div", { class: "leaderboards" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.boards(), rulesets()])
    .then(([boards, rules]) => alive && render(page, boards, rules, query))
    .catch((error) => alive && replace(page, problem(error)));
  return () => (alive = false);
}

function render(page, boards, rules, query) {
  const scope = boards.scopes.includes(query.get("scope")) ? query.get("scope") : "daily";
  // Arena points and ratings belong to a ruleset.
  const metrics = boards.metrics.filter((m) => !["arena_points", "rating"].includes(m) || scope !== "daily");
  const metric = metrics.includes(query.get("metric")) ? query.get("metric") : "wins";
  const period = boards.periods.includes(query.get("period")) ? query.get("period") : "all";
  const at = period === "all" ? "" : query.get("at") || "";
  // A new choice redraws the page in place (the focus stays on the tabs it was on).
  const go = (changes, from = null) => {
    const next = new URLSearchParams({ scope, metric, period, ...(at ? { at } : {}), ...changes });
    if (next.get("period") === "all" || !next.get("at")) next.delete("at");
    if (next.get("scope") === "daily" && ["arena_points", "rating"].includes(next.get("metric"))) next.set("metric", "wins");
    history.replaceState(null, "", `/leaderboards?${next}`);
    render(page, boards, rules, next);
    if (from) page.querySelector(`#${from} [aria-selected="true"]`)?.focus();
  };
  const scopeName = (s) => (s === "daily" ? t("boards.daily") : rulesTitle(rules.byName[s] || { name: s, title: s }));
  const picker = period === "all"
    ? null
    : h("input", { type: period, id: "period-at", class: "period-at", value: at || "", "aria-label": t(`boards.pick_${period}`), onchange: (e) => go({ at: e.target.value }) });
  const table = h("div", { class: "board-table" }, h("p", { class: "muted", text: t("loading") }));
  replace(page, h("section", { class: "panel", "aria-labelledby": "boards-title" },
    h("h1", { id: "boards-title", text: t("boards.title") }),
    tabs(t("boards.scope"), boards.scopes.map((s) => [s, scopeName(s)]), scope, (s) => go({ scope: s }, "scope-tabs"), { id: "scope-tabs" }),
    tabs(t("boards.metric"), metrics.map((m) => [m, t(`boards.metric_${m}`)]), metric, (m) => go({ metric: m }, "metric-tabs"), { id: "metric-tabs" }),
    h("div", { class: "period-row" }, tabs(t("boards.period"), boards.periods.map((p) => [p, t(`boards.period_${p}`)]), period, (p) => go({ period: p, at: "" }, "period-tabs"), { id: "period-tabs" }), picker),
    metric === "rating" ? h("p", { class: "muted small", id: "rating-note", text: t(period === "all" ? "boards.rating_note" : "boards.rating_note_period") }) : null,
    table,
  ));
  load(table, scope, metric, period, at, null, picker);
}

async function load(container, scope, metric, period, at, cursor, picker) {
  const me = api.session();
  let body;
  try {
    body = await api.leaderboard(scope, metric, { period, at: at || undefined, limit: 50, cursor: cursor || undefined });
  } catch (error) {
    replace(container, h("p", { class: "form-error", text: error.detail || t("error.network") }));
    return;
  }
  if (picker && !picker.value) picker.value = body.key; // the current week or month
  const row = (r, extra = "") => h("tr", { class: `${me && r.player === me.username ? "me" : ""} ${extra}`, "data-player": r.player },
    h("td", { class: "rank", text: r.rank }),
    h("td", {}, h("a", { href: `/players/${encodeURIComponent(r.player)}`, class: "player", text: r.player })),
    h("td", { class: "num", "data-col": "value" }, metricValue(metric, r.value)),
    h("td", { class: "num muted small", text: when(r.reached_at, { dateStyle: "medium" }) }),
    h("td", {}, r.game ? h("a", { href: `/games/${r.game}`, class: "btn btn-small", text: t("boards.watch_game"), "aria-label": t("boards.watch_game_of", { player: r.player }) }) : null),
  );
  const rows = body.results.map((r) => row(r));
  const onPage = body.me && body.results.some((r) => r.player === body.me.player);
  const mine = body.me && !onPage ? [h("tr", { class: "gap" }, h("td", { colspan: 5, text: "…" })), row(body.me, "own")] : [];
  const more = body.next ? h("button", { type: "button", class: "btn", id: "boards-more", text: t("boards.more") }) : null;
  const table = h("table", { class: "table", id: "leaderboard" },
    h("caption", { class: "sr-only", text: t(`boards.metric_${metric}`) }),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: t("daily.rank") }),
      h("th", { scope: "col", text: t("daily.player") }),
      h("th", { scope: "col", class: "num", text: t(`boards.metric_${metric}`) }),
      h("th", { scope: "col", class: "num", text: t("boards.reached") }),
      h("th", { scope: "col" }, h("span", { class: "sr-only", text: t("boards.game") })),
    )),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 5, class: "muted", text: t("boards.empty") })), mine),
  );
  if (!cursor) replace(container, h("div", { class: "table-wrap" }, table), more);
  else {
    container.querySelector("#leaderboard tbody").append(...rows);
    container.querySelector("#boards-more")?.remove();
    if (more) container.append(more);
  }
  more?.addEventListener("click", () => {
    const next = new URL(body.next).searchParams.get("cursor");
    load(container, scope, metric, period, body.key, next, null);
  });
}
