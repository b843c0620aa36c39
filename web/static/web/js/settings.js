// The settings dialog, opened from the header: the language (i18n.js), and card size, theme,
// sound, animations and auto-finish (prefs.js). Each change is applied at once, behind the
// dialog, and stored; a new language draws the dialog again in it.

import { h, modal } from "./dom.js";
import { LANGS, getLang, setLang, t } from "./i18n.js";
import { CHOICES, prefs, setPrefs } from "./prefs.js";

/** A group of radio buttons for the preference `name`, one per value it may take. */
function choice(name) {
  const group = h(
    "fieldset",
    { class: "setting-choice", id: `setting-${name}` },
    h("legend", { text: t(`settings.${name}`) }),
    CHOICES[name].map((value) =>
      h("label", { class: "setting-option" },
        h("input", { type: "radio", name, value, checked: prefs()[name] === value || undefined }),
        h("span", { text: t(`settings.${name}.${value}`) }),
      ),
    ),
  );
  group.addEventListener("change", (event) => setPrefs({ [name]: event.target.value }));
  return group;
}

/** A checkbox for the on/off preference `name`, with a line on what it does. */
function toggle(name) {
  const box = h("input", { type: "checkbox", id: `setting-${name}`, checked: prefs()[name] || undefined });
  box.addEventListener("change", () => setPrefs({ [name]: box.checked }));
  return h("div", { class: "option-row check setting-toggle" },
    box,
    h("label", { for: `setting-${name}` }, t(`settings.${name}`), h("span", { class: "block small muted", text: t(`settings.${name}.about`) })),
  );
}

/** The language's picker: on a change, the dialog closes and opens again in the new one. */
function language() {
  const select = h(
    "select",
    { id: "lang", class: "select lang-select" },
    LANGS.map(([code, name]) => h("option", { value: code, selected: code === getLang() || undefined, text: name })),
  );
  select.addEventListener("change", async () => {
    await setLang(select.value);
    select.closest("dialog")?.querySelector('[data-value="close"]')?.click();
    showSettings();
  });
  return h("div", { class: "option-row" }, h("label", { for: "lang", text: t("nav.language") }), select);
}

export function showSettings() {
  return modal({
    title: t("settings.title"),
    className: "settings",
    body: [
      language(),
      choice("theme"),
      choice("card_size"),
      toggle("sound"),
      toggle("animations"),
      toggle("auto_finish"),
      h("p", { class: "small muted", id: "settings-where", text: t("settings.where") }),
    ],
    buttons: [{ label: t("dialog.close"), value: "close", primary: true }],
  });
}
