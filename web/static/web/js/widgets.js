// Pieces shared by several pages: ruleset names and descriptions, status badges, a countdown,
// a game row, a page-sized error, polling that pauses while the tab is hidden.

import * as api from "./api.js";
import { clock, h } from "./dom.js";
import { ago, num, plural, t } from "./i18n.js";

let rulesCache = null;

/** The rulesets of GET /rules, by name (fetched once). */
export async function rulesets() {
  rulesCache ??= api.get("/rules").then((data) => ({
    list: data.results,
    byName: Object.fromEntries(data.results.map((r) => [r.name, r])),
    default: data.default,
  }));
  try {
    return await rulesCache;
  } catch (error) {
    rulesCache = null;
    throw error;
  }
}

export function rulesTitle(rules) {
  const key = `rules.title.${rules.name}`;
  const text = t(key);
  return text === key ? rules.title : text;
}

/** A short description of a ruleset: written for the known ones, else built from its data. */
export function rulesDescription(rules) {
  const key = `rules.about.${rules.name}`;
  const text = t(key);
  if (text !== key) return text;
  return [
    t(rules.build === "any_suit" ? "rules.gen.any_suit" : "rules.gen.same_suit"),
    t(rules.empty_column === "any" ? "rules.gen.empty_any" : "rules.gen.empty_king"),
    rules.undo_depth === 0 ? t("rules.gen.no_undo") : "",
  ].join(" ");
}

export function statusBadge(game) {
  const status = game.status === "playing" && game.blocked ? "blocked" : game.status;
  return h("span", { class: `badge badge-${status}`, text: t(`status.${status}`) });
}

/**
 * Count down to `endsAt` every second in `el` (`offsetMs`: the server's clock minus ours);
 * `onEnd` when it reaches zero. Returns a stop function.
 */
export function countdown(el, endsAt, offsetMs = 0, onEnd = null) {
  const end = new Date(endsAt).getTime();
  let ended = false;
  const tick = () => {
    const left = end - (Date.now() + offsetMs);
    el.textContent = clock(left);
    el.setAttribute("datetime", `PT${Math.max(0, Math.floor(left / 1000))}S`);
    if (left <= 0 && !ended) {
      ended = true;
      onEnd?.();
    }
  };
  tick();
  const timer = setInterval(tick, 1000);
  return () => clearInterval(timer);
}

/** The server's clock minus ours, from a response's Date header (0 if absent). */
export function clockOffset(response) {
  const date = Date.parse(response.headers.get("Date") || "");
  return Number.isNaN(date) ? 0 : date - Date.now();
}

/** One line of a games list, a link to the game's page. */
export function gameRow(game, { showOwner = true, extra = null } = {}, rulesByName = {}) {
  const rules = rulesByName[game.rules];
  const goal = rules?.sequences_to_win || 4;
  return h(
    "li",
    { class: "game-row" },
    h(
      "a",
      { href: `/games/${game.id}`, class: "game-link", "data-game": game.id },
      h("span", { class: "game-title" },
        showOwner ? h("span", { class: "owner", text: game.owner }) : null,
        h("span", { class: "rules-name", text: rules ? rulesTitle(rules) : game.rules }),
        game.challenge ? h("span", { class: "tag", text: t("lobby.daily_tag", { date: game.challenge }) }) : null,
        game.public ? null : h("span", { class: "tag", text: t("lobby.private") }),
      ),
      h("span", { class: "game-stats" },
        statusBadge(game),
        h("span", { class: "stat", text: plural("stats.score_n", game.score) }),
        h("span", { class: "stat", text: plural("stats.moves_n", game.moves) }),
        h("span", { class: "stat", text: `${game.removed.length}/${goal} ${t("stats.sequences_short")}` }),
        h("span", { class: "stat muted", text: ago(game.finished_at || game.created_at) }),
      ),
    ),
    extra,
  );
}

/**
 * Call `fn` now and every `ms` while the page is visible; at once again when it becomes
 * visible after being hidden. Returns a stop function.
 */
export function poll(fn, ms) {
  let timer = null;
  let stopped = false;
  const run = async () => {
    clearTimeout(timer);
    if (stopped) return;
    try {
      await fn();
    } catch {
      // the next round tries again
    }
    if (!stopped && !document.hidden) timer = setTimeout(run, ms);
  };
  const visibility = () => {
    if (!document.hidden) run();
    else clearTimeout(timer);
  };
  document.addEventListener("visibilitychange", visibility);
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", visibility);
  };
}

/** An error answer as a sentence for a form: the reasons of each field it names, else its
 *  detail; a network failure says so. */
export function reasonOf(error) {
  if (error instanceof api.ApiError) {
    const fields = Object.values(error.body.fields || {}).flat();
    return fields.length ? fields.join(" ") : error.detail;
  }
  return t("error.network");
}

/** A page-sized explanation of an error answer. */
export function problem(error, { notFound = t("game.not_found"), title = t("game.unavailable") } = {}) {
  const messages = {
    private_game: t("game.private"),
    challenge_in_progress: t("game.in_progress"),
    contest_in_progress: t("game.contest_in_progress"),
    not_found: notFound,
  };
  const text = error instanceof api.ApiError ? messages[error.code] || error.detail : t("error.network");
  return h("div", { class: "panel narrow" }, h("h1", { text: title }), h("p", { id: "problem", text }), h("a", { href: "/", class: "btn", text: t("nav.back_lobby") }));
}

/**
 * A row of tabs (the ARIA tabs pattern: one tab stop, arrows move between tabs): `items`
 * are [value, label]; `onSelect(value)` when one is chosen.
 */
export function tabs(label, items, selected, onSelect, { id } = {}) {
  const list = h("div", { class: "tabs", role: "tablist", "aria-label": label, id });
  const buttons = items.map(([value, text]) =>
    h("button", {
      type: "button",
      role: "tab",
      class: "tab",
      "data-value": value,
      "aria-selected": String(value === selected),
      tabindex: value === selected ? "0" : "-1",
      text,
      onclick: () => onSelect(value),
    }),
  );
  list.append(...buttons);
  list.addEventListener("keydown", (event) => {
    const at = buttons.indexOf(event.target);
    const step = { ArrowRight: 1, ArrowLeft: -1, Home: -at, End: buttons.length - 1 - at }[event.key];
    if (at < 0 || step === undefined) return;
    event.preventDefault();
    const next = buttons[(at + step + buttons.length) % buttons.length];
    next.focus();
    next.click();
  });
  return list;
}

/** "1:05:09"-style text for a leaderboard or record value of `metric`. */
export function metricValue(metric, value) {
  if (value == null) return "—";
  if (metric === "best_time") return `${clock(value)}.${Math.floor((value % 1000) / 100)}`;
  if (metric === "rating") return num(Math.round(value), { useGrouping: false }); // "1706", as chess writes it
  return num(value);
}

/** A rating as shown: rounded, ungrouped, with "?" while it is provisional (as lichess
 *  writes it). */
export function ratingText(value, provisional) {
  return `${num(Math.round(value), { useGrouping: false })}${provisional ? "?" : ""}`;
}

/** An arena's points table (docs/api.md#arena-points), from its `points`. */
export function pointsTable(points) {
  const row = (what, value) => h("tr", {}, h("th", { scope: "row", text: what }), h("td", { class: "num", text: value }));
  return h("table", { class: "table points-table" },
    h("tbody", {},
      row(t("arena.p_win"), t("arena.p_win_value", { win: points.win, bonus: points.speed_bonus, step: points.speed_step_seconds })),
      row(t("arena.p_aided"), num(points.aided_win)),
      row(t("arena.p_other"), t("arena.p_other_value", { n: points.sequence })),
    ));
}
