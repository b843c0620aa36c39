// The keyboard shortcuts dialog, opened from the header, the game's toolbar and the "?" key.

import { h, modal } from "./dom.js";
import { t } from "./i18n.js";

export function showHelp() {
  const keys = [
    ["← → ↑ ↓", t("help.arrows")],
    [t("help.enter_keys"), t("help.enter")],
    ["1 … 9, 0", t("help.digits")],
    ["Esc", t("help.escape")],
    ["D", t("action.deal")],
    ["U", t("action.undo")],
    ["H", t("action.hint")],
    ["R", t("action.restart")],
    ["X", t("action.resign")],
  ];
  return modal({
    title: t("help.title"),
    body: [
      h("p", { text: t("help.intro") }),
      h("dl", { class: "keys" }, keys.map(([k, v]) => [h("dt", {}, h("kbd", { text: k })), h("dd", { text: v })])),
    ],
    buttons: [{ label: t("dialog.close"), value: "close", primary: true }],
  });
}
