// The client's entry point: the header, the language, and the table of the pages that the
// server answers with this same shell (/, /signin, /daily, /games/<id>, /players/<name>).
// Views are loaded on demand; they reach other pages through router.js, never through here.

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import { showHelp } from "./help.js";
import { LANGS, getLang, loadLang, onLangChange, setLang, t } from "./i18n.js";
import { navigate, onNavigate } from "./router.js";

const ROUTES = [
  [/^\/$/, () => import("./views/lobby.js")],
  [/^\/signin$/, () => import("./views/signin.js")],
  [/^\/daily(?:\/(?<date>\d{4}-\d{2}-\d{2}))?$/, () => import("./views/daily.js")],
  [/^\/games\/(?<id>[^/]+)$/, () => import("./views/game.js")],
  [/^\/players\/(?<name>[^/]+)$/, () => import("./views/profile.js")],
];

const main = document.getElementById("main");
const header = document.getElementById("site-header");
let unmount = null;
let generation = 0;

async function route() {
  const mine = ++generation;
  unmount?.();
  unmount = null;
  const path = location.pathname;
  const match = ROUTES.map(([pattern, load]) => [path.match(pattern), load]).find(([m]) => m);
  renderHeader();
  if (!match) {
    replace(main, h("div", { class: "panel narrow" }, h("h1", { text: t("notfound.title") }), h("p", {}, h("a", { href: "/", text: t("nav.lobby") }))));
    return;
  }
  const [found, load] = match;
  const view = await load();
  if (mine !== generation) return;
  const params = Object.fromEntries(
    Object.entries(found.groups || {}).map(([k, v]) => [k, v && decodeURIComponent(v)]),
  );
  replace(main);
  main.className = `view-${view.name || "page"}`;
  unmount = view.mount(main, params, new URLSearchParams(location.search)) || null;
  window.scrollTo(0, 0);
}

function renderHeader() {
  const me = api.session();
  const here = location.pathname;
  const link = (href, label, match) =>
    h("a", { href, class: "nav-link", "aria-current": match ? "page" : undefined, text: label });
  const language = h(
    "select",
    { id: "lang", class: "lang", "aria-label": t("nav.language") },
    LANGS.map(([code, name]) => h("option", { value: code, selected: code === getLang() || undefined, text: name })),
  );
  language.addEventListener("change", () => setLang(language.value));
  replace(
    header,
    h(
      "div",
      { class: "header-inner" },
      h("a", { href: "/", class: "brand", "aria-label": t("brand.home") },
        h("span", { class: "brand-mark", "aria-hidden": "true", text: "♠" }),
        h("span", { class: "brand-name", text: "Scorpion" }),
      ),
      h(
        "nav",
        { class: "nav", "aria-label": t("nav.main") },
        link("/", t("nav.lobby"), here === "/"),
        link("/daily", t("nav.daily"), here.startsWith("/daily")),
        me ? link(`/players/${encodeURIComponent(me.username)}`, me.username, here === `/players/${encodeURIComponent(me.username)}`) : null,
      ),
      h(
        "div",
        { class: "header-tools" },
        language,
        h("button", { type: "button", class: "btn btn-ghost btn-icon", "aria-label": t("help.title"), title: t("help.title"), text: "?", onclick: showHelp }),
        me
          ? h("button", { type: "button", class: "btn btn-ghost", id: "signout", text: t("nav.signout"), onclick: () => { api.signOut(); navigate("/"); } })
          : here === "/signin"
            ? null
            : h("a", { href: `/signin?next=${encodeURIComponent(here)}`, class: "btn btn-primary", id: "signin-link", text: t("nav.signin") }),
      ),
    ),
  );
}

onNavigate(route);
api.onSessionChange(() => renderHeader());
onLangChange(() => route());

await loadLang(getLang());
document.documentElement.lang = getLang();
route();
