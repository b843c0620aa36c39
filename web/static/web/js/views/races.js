// Races between friends: make one (ruleset, deals, start, time limit, public or private),
// join one by its code, and the list of those running or starting soon.

import * as api from "../api.js";
import { h, replace, toast } from "../dom.js";
import { plural, t, when } from "../i18n.js";
import { navigate } from "../router.js";
import { rulesets, rulesTitle, statusBadge } from "../widgets.js";

export const name = "races";

const STARTS = [10, 30, 60, 120, 300, 900];
const LIMITS = [5, 10, 15, 30, 60];

export function mount(root) {
  const me = api.session();
  let alive = true;
  const create = h("section", { class: "panel", "aria-labelledby": "race-new-title" });
  const join = h("section", { class: "panel", "aria-labelledby": "race-join-title" });
  const list = h("section", { class: "panel", "aria-labelledby": "race-list-title" }, h("h2", { id: "race-list-title", text: t("races.list") }), h("p", { class: "muted", text: t("loading") }));
  root.append(h("div", { class: "lobby" }, h("div", { class: "lobby-main" }, create), h("div", { class: "lobby-side" }, join, list)));
  renderJoin(join, me);
  rulesets().then((rules) => alive && renderCreate(create, rules, me)).catch(() => replace(create, h("p", { class: "form-error", text: t("error.network") })));
  Promise.all([api.all("/races?status=scheduled", 20), api.all("/races?status=running", 20), rulesets()])
    .then(([soon, running, rules]) => alive && renderList(list, [...running, ...soon], rules))
    .catch(() => alive && replace(list, h("h2", { id: "race-list-title", text: t("races.list") }), h("p", { class: "form-error", text: t("error.network") })));
  return () => (alive = false);
}

function field(id, label, control) {
  return h("div", { class: "option-row" }, h("label", { for: id, text: label }), control);
}

function select(id, options, chosen) {
  return h("select", { id, name: id, class: "select" }, options.map(([value, text]) => h("option", { value, selected: value === chosen || undefined, text })));
}

function renderCreate(panel, rules, me) {
  const ruleset = select("race-rules", rules.list.map((r) => [r.name, rulesTitle(r)]), rules.default);
  const deals = select("race-deals", [1, 2, 3, 4, 5].map((n) => [String(n), plural("races.deals_n", n)]), "1");
  const starts = select("race-start", STARTS.map((s) => [String(s), s < 60 ? plural("races.in_seconds", s) : plural("races.in_minutes", s / 60)]), "60");
  const limit = select("race-limit", LIMITS.map((m) => [String(m * 60), plural("races.minutes", m)]), String(10 * 60));
  const visible = h("input", { id: "race-public", type: "checkbox", checked: true });
  const title = h("input", { id: "race-title", maxlength: 80, autocomplete: "off", placeholder: t("races.title_placeholder") });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "create-race", text: me ? t("races.create") : t("races.signin_to_create") });
  const form = h("form", { class: "race-form" },
    field("race-rules", t("lobby.ruleset"), ruleset),
    h("div", { class: "form-grid" },
      field("race-deals", t("races.deals"), deals),
      field("race-start", t("races.starts"), starts),
      field("race-limit", t("races.time_limit"), limit),
    ),
    field("race-title", t("races.title_field"), title),
    h("div", { class: "option-row check" }, visible, h("label", { for: "race-public", text: t("races.public") })),
    h("p", { class: "muted small", text: t("races.public_help") }),
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!me) return navigate("/signin?next=/races");
    submit.disabled = true;
    try {
      const race = await api.post("/races", {
        rules: ruleset.value,
        deals: Number(deals.value),
        countdown: Number(starts.value),
        time_limit: Number(limit.value),
        public: visible.checked,
        title: title.value.trim(),
      });
      navigate(`/races/${race.code}`);
    } catch (error) {
      const fields = error.body?.fields ? Object.values(error.body.fields).flat().join(" ") : "";
      toast(fields || error.detail || t("error.network"), "error");
      submit.disabled = false;
    }
  });
  replace(panel, h("h1", { id: "race-new-title", text: t("races.new") }), h("p", { class: "muted", text: t("races.about") }), form);
}

function renderJoin(panel, me) {
  const code = h("input", { id: "race-code", name: "code", autocomplete: "off", spellcheck: "false", autocapitalize: "characters", maxlength: 6, minlength: 6, required: true, placeholder: "K7QH2M", pattern: "[A-Za-z0-9]{6}" });
  const submit = h("button", { type: "submit", class: "btn btn-gold", id: "join-code", text: t("races.join") });
  const form = h("form", { class: "code-form" }, h("label", { for: "race-code", text: t("races.code") }), h("div", { class: "inline" }, code, submit));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = code.value.trim().toUpperCase();
    if (!/^[A-Z0-9]{6}$/.test(key)) return toast(t("races.bad_code"), "error");
    if (!me) return navigate(`/signin?next=/races/${key}`);
    submit.disabled = true;
    try {
      await api.post(`/races/${key}/join`);
      navigate(`/races/${key}`);
    } catch (error) {
      submit.disabled = false;
      if (error.code === "race_started") navigate(`/races/${key}`);
      else toast(error.code === "not_found" ? t("races.no_such_code") : error.detail || t("error.network"), "error");
    }
  });
  replace(panel, h("h2", { id: "race-join-title", text: t("races.join_title") }), form);
}

function renderList(panel, races, rules) {
  replace(
    panel,
    h("h2", { id: "race-list-title", text: t("races.list") }),
    races.length
      ? h("ul", { class: "game-list", id: "race-list" }, races.map((race) =>
          h("li", { class: "game-row" }, h("a", { href: `/races/${race.code}`, class: "game-link" },
            h("span", { class: "game-title" }, h("span", { text: race.title || t("races.by", { player: race.creator || "?" }) }), h("span", { class: "rules-name", text: rulesTitle(rules.byName[race.rules] || { name: race.rules, title: race.rules }) })),
            h("span", { class: "game-stats" }, statusBadge({ status: race.status }), h("span", { class: "stat", text: plural("races.racers", race.racers) }), h("span", { class: "stat muted", text: when(race.starts_at, { timeStyle: "short" }) })),
          ))))
      : h("p", { class: "muted", text: t("races.none") }),
  );
}
