// The daily archive: a calendar of a month's challenges, with the player's result on each
// day; a day opens its page (standings, replays, the solution, an unranked game).

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { getLang, t } from "../i18n.js";
import { problem } from "../widgets.js";

export const name = "archive";

function monthOf(text) {
  const today = new Date();
  const [year, month] = text ? text.split("-").map(Number) : [today.getUTCFullYear(), today.getUTCMonth() + 1];
  return { year, month };
}

const key = ({ year, month }) => `${year}-${String(month).padStart(2, "0")}`;
const shift = ({ year, month }, by) => {
  const index = year * 12 + (month - 1) + by;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
};

export function mount(root, { month: wanted }) {
  let alive = true;
  const shown = monthOf(wanted);
  const page = h("div", { class: "archive" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  api.month(key(shown))
    .then((body) => alive && render(page, shown, body))
    .catch((error) => alive && replace(page, problem(error)));
  return () => (alive = false);
}

function render(page, shown, body) {
  const me = api.session();
  const days = new Map(body.results.map((day) => [day.date, day]));
  const first = new Date(Date.UTC(shown.year, shown.month - 1, 1));
  const length = new Date(Date.UTC(shown.year, shown.month, 0)).getUTCDate();
  const lead = (first.getUTCDay() + 6) % 7; // Monday first
  const title = new Intl.DateTimeFormat(getLang(), { month: "long", year: "numeric", timeZone: "UTC" }).format(first);
  const weekday = new Intl.DateTimeFormat(getLang(), { weekday: "short", timeZone: "UTC" });
  const dayName = new Intl.DateTimeFormat(getLang(), { dateStyle: "full", timeZone: "UTC" });
  const heads = Array.from({ length: 7 }, (_, i) => h("div", { class: "cal-head", role: "columnheader", text: weekday.format(new Date(Date.UTC(2024, 0, 1 + i))) }));
  const cells = [];
  for (let i = 0; i < lead; i += 1) cells.push(h("div", { class: "cal-day blank", role: "gridcell" }));
  for (let d = 1; d <= length; d += 1) {
    const date = `${key(shown)}-${String(d).padStart(2, "0")}`;
    const day = days.get(date);
    if (!day) {
      cells.push(h("div", { class: "cal-day none", role: "gridcell" }, h("span", { class: "cal-num", text: d })));
      continue;
    }
    const mine = day.mine;
    const result = mine ? (mine.status === "won" ? "won" : mine.status === "playing" && day.status === "open" ? "playing" : "lost") : "none";
    const said = [
      dayName.format(new Date(`${date}T00:00:00Z`)),
      day.status === "open" ? t("archive.open") : day.difficulty ? t(`difficulty.${day.difficulty}`) : "",
      mine ? t(`archive.result_${result}`) : me ? t("archive.not_played") : "",
      mine?.hints ? t("standings.aided") : "",
    ].filter(Boolean).join(", ");
    cells.push(h("div", { class: "cal-day", role: "gridcell" },
      h("a", { href: `/daily/${date}`, class: `cal-link result-${result} ${day.status}`, "data-date": date, "aria-label": said },
        h("span", { class: "cal-num", "aria-hidden": "true", text: d }),
        h("span", { class: "cal-mark", "aria-hidden": "true", text: { won: "★", playing: "▶", lost: "•", none: "" }[result] }),
        day.difficulty ? h("span", { class: `cal-diff difficulty-${day.difficulty}`, "aria-hidden": "true", text: t(`difficulty.${day.difficulty}`) } ) : null,
      )));
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 7) rows.push(h("div", { class: "cal-row", role: "row" }, cells.slice(i, i + 7)));
  const today = monthOf(null);
  const next = shift(shown, 1);
  const later = next.year * 12 + next.month <= today.year * 12 + today.month;
  replace(page, h("section", { class: "panel", "aria-labelledby": "archive-title" },
    h("div", { class: "panel-head" },
      h("h1", { id: "archive-title", text: t("archive.title") }),
      h("nav", { class: "cal-nav", "aria-label": t("archive.months") },
        h("a", { href: `/archive/${key(shift(shown, -1))}`, class: "btn btn-small", id: "month-back", text: t("archive.previous") }),
        h("span", { class: "cal-title", id: "month-title", text: title }),
        later ? h("a", { href: `/archive/${key(next)}`, class: "btn btn-small", id: "month-next", text: t("archive.next") }) : null,
      ),
    ),
    h("div", { class: "calendar", role: "grid", "aria-label": title }, h("div", { class: "cal-row", role: "row" }, heads), rows),
    h("p", { class: "muted small", text: me ? t("archive.legend") : t("archive.signin_note") }),
  ));
}
