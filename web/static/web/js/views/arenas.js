// The arenas: those running and those coming, each with its window and its points table.

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { plural, t, when } from "../i18n.js";
import { pointsTable, rulesets, rulesTitle, statusBadge } from "../widgets.js";

export const name = "arenas";

export function mount(root) {
  let alive = true;
  const page = h("div", { class: "arenas" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  Promise.all([api.all("/arenas?status=running", 50), api.all("/arenas?status=scheduled", 50), rulesets()])
    .then(([running, coming, rules]) => {
      if (!alive) return;
      const list = (arenas, id) =>
        arenas.length
          ? h("ul", { class: "game-list", id }, arenas.map((arena) => h("li", { class: "game-row" }, h("a", { href: `/arenas/${arena.id}`, class: "game-link" },
              h("span", { class: "game-title" }, h("span", { text: arena.title }), h("span", { class: "rules-name", text: rulesTitle(rules.byName[arena.rules] || { name: arena.rules, title: arena.rules }) })),
              h("span", { class: "game-stats" }, statusBadge({ status: arena.status }), h("span", { class: "stat", text: plural("arena.players", arena.players) }),
                h("span", { class: "stat muted", text: arena.status === "running" ? t("arena.until", { time: when(arena.ends_at) }) : t("arena.from", { time: when(arena.starts_at) }) })),
            ))))
          : h("p", { class: "muted", text: t("arena.none") });
      const sample = running[0] || coming[0];
      replace(page,
        h("section", { class: "panel", "aria-labelledby": "arenas-title" }, h("h1", { id: "arenas-title", text: t("arena.title") }), h("p", { class: "muted", text: t("arena.about") }),
          h("h2", { text: t("arena.running") }), list(running, "arenas-running"),
          h("h2", { text: t("arena.coming") }), list(coming, "arenas-coming")),
        sample ? h("section", { class: "panel", "aria-labelledby": "points-title" }, h("h2", { id: "points-title", text: t("arena.points_table") }), pointsTable(sample.points)) : null,
      );
    })
    .catch(() => alive && replace(page, h("p", { class: "form-error", text: t("error.network") })));
  return () => (alive = false);
}
