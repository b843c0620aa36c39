// The arenas: those running and those coming, each with its window and its points table,
// and a form to make one's own (ruleset, start, duration, public or by code).

import * as api from "../api.js";
import { h, replace, toast } from "../dom.js";
import { plural, t, when } from "../i18n.js";
import { navigate } from "../router.js";
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
          ? h("ul", { class: "game-list", id }, arenas.map((arena) => h("li", { class: "game-row" }, h("a", { href: `/arenas/${arena.code || arena.id}`, class: "game-link" },
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
        createPanel(rules),
        sample ? h("section", { class: "panel", "aria-labelledby": "points-title" }, h("h2", { id: "points-title", text: t("arena.points_table") }), pointsTable(sample.points)) : null,
      );
      if (location.hash === "#new-arena") document.getElementById("new-arena")?.scrollIntoView();
    })
    .catch(() => alive && replace(page, h("p", { class: "form-error", text: t("error.network") })));
  return () => (alive = false);
}

const STARTS = [60, 300, 900, 3600, 86400];
const DURATIONS = [15, 30, 60, 180, 1440, 10080];

/** Make an arena of one's own (POST /arenas): an account's, never a guest's. */
function createPanel(rules) {
  const me = api.session();
  const account = me && !me.guest;
  const select = (id, options, chosen) => h("select", { id, name: id, class: "select" }, options.map(([value, text]) => h("option", { value, selected: value === chosen || undefined, text })));
  const field = (id, label, control) => h("div", { class: "option-row" }, h("label", { for: id, text: label }), control);
  const minutes = (m) => (m % 1440 === 0 ? plural("arena.days", m / 1440) : m % 60 === 0 ? plural("arena.hours", m / 60) : plural("races.minutes", m));
  const ruleset = select("arena-rules", rules.list.map((r) => [r.name, rulesTitle(r)]), rules.default);
  const starts = select("arena-start", STARTS.map((s) => [String(s), t("arena.in", { time: minutes(s / 60) })]), "300");
  const duration = select("arena-duration", DURATIONS.map((m) => [String(m * 60), minutes(m)]), String(60 * 60));
  const title = h("input", { id: "arena-title", maxlength: 80, autocomplete: "off", placeholder: t("arena.title_placeholder") });
  const visible = h("input", { id: "arena-public", type: "checkbox", checked: true });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "create-arena", text: account ? t("arena.create") : t("arena.account_to_create") });
  const form = h("form", { class: "race-form" },
    field("arena-rules", t("lobby.ruleset"), ruleset),
    h("div", { class: "form-grid" }, field("arena-start", t("races.starts"), starts), field("arena-duration", t("arena.duration"), duration)),
    field("arena-title", t("races.title_field"), title),
    h("div", { class: "option-row check" }, visible, h("label", { for: "arena-public", text: t("arena.public") })),
    h("p", { class: "muted small", text: t("arena.public_help") }),
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!me) return navigate("/signin?next=/arenas");
    if (!account) return navigate("/signin?mode=signup&next=/arenas");
    submit.disabled = true;
    try {
      const arena = await api.post("/arenas", {
        rules: ruleset.value,
        countdown: Number(starts.value),
        duration: Number(duration.value),
        public: visible.checked,
        title: title.value.trim(),
      });
      navigate(`/arenas/${arena.code}`);
    } catch (error) {
      const fields = error.body?.fields ? Object.values(error.body.fields).flat().join(" ") : "";
      toast(fields || error.detail || t("error.network"), "error");
      submit.disabled = false;
    }
  });
  return h("section", { class: "panel", id: "new-arena", "aria-labelledby": "new-arena-title" },
    h("h2", { id: "new-arena-title", text: t("arena.new") }), h("p", { class: "muted", text: t("arena.new_about") }), form);
}
