// The client's entry point: the header (its settings hold the language), and the table of the pages that the
// server answers with this same shell (web/urls.py lists them). Views are loaded on demand,
// and the data a page needs first is asked for at once, while its modules load; views reach
// other pages through router.js, never through here.

import * as api from "./api.js";
import { dropCarried } from "./boot.js";
import { h, replace } from "./dom.js";
import { getLang, loadLang, onLangChange, t } from "./i18n.js";
import "./prefs.js"; // the preferences apply before the first view
import { navigate, onNavigate } from "./router.js";

const ROUTES = [
  [/^\/$/, () => import("./views/lobby.js")],
  [/^\/signin$/, () => import("./views/signin.js")],
  [/^\/account$/, () => import("./views/account.js")],
  [/^\/account\/(?<step>reset|verify)$/, () => import("./views/recover.js")],
  [/^\/daily(?:\/(?<date>\d{4}-\d{2}-\d{2}))?$/, () => import("./views/daily.js")],
  [/^\/archive(?:\/(?<month>\d{4}-\d{2}))?$/, () => import("./views/archive.js")],
  [/^\/games\/(?<id>[^/]+)$/, () => import("./views/game.js"), ({ id }) => [`/games/${encodeURIComponent(id)}`]],
  [/^\/players\/(?<name>[^/]+)$/, () => import("./views/profile.js")],
  [/^\/players\/(?<name>[^/]+)\/stats\/(?<rules>[^/]+)$/, () => import("./views/stats.js")],
  [/^\/races$/, () => import("./views/races.js")],
  [/^\/races\/(?<key>[^/]+)$/, () => import("./views/race.js")],
  [/^\/arenas$/, () => import("./views/arenas.js")],
  [/^\/arenas\/(?<id>[^/]+)$/, () => import("./views/arena.js")],
  [/^\/leaderboards$/, () => import("./views/leaderboards.js")],
  [/^\/puzzles(?:\/(?<mode>daily|streak|dashboard))?$/, () => import("./views/puzzles.js")],
  [/^\/tv$/, () => import("./views/tv.js")],
];

const main = document.getElementById("main");
const header = document.getElementById("site-header");
let unmount = null;
let generation = 0;

async function route() {
  const mine = ++generation;
  if (mine > 1) dropCarried(); // what the shell carried was for the page it came with
  unmount?.();
  unmount = null;
  const path = location.pathname;
  const match = ROUTES.map(([pattern, load, data]) => [path.match(pattern), load, data]).find(([m]) => m);
  renderHeader();
  if (!match) {
    replace(main, h("div", { class: "panel narrow" }, h("h1", { text: t("notfound.title") }), h("p", {}, h("a", { href: "/", text: t("nav.lobby") }))));
    return;
  }
  const [found, load, data] = match;
  const params = Object.fromEntries(
    Object.entries(found.groups || {}).map(([k, v]) => [k, v && decodeURIComponent(v)]),
  );
  for (const wanted of data?.(params) || []) api.prefetch(wanted);
  const view = await load();
  if (mine !== generation) return;
  replace(main);
  main.className = `view-${view.name || "page"}`;
  unmount = view.mount(main, params, new URLSearchParams(location.search)) || null;
  window.scrollTo(0, 0);
}

/** The shortcuts dialog, loaded when first asked for. */
function showHelp() {
  return import("./help.js").then((m) => m.showHelp());
}

/** The settings dialog, loaded when first asked for. */
function showSettings() {
  return import("./settings.js").then((m) => m.showSettings());
}

function renderHeader() {
  const me = api.session();
  const here = location.pathname;
  const link = (href, label, match) =>
    h("a", { href, class: "nav-link", "aria-current": match ? "page" : undefined, text: label });
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
        link("/daily", t("nav.daily"), here.startsWith("/daily") || here.startsWith("/archive")),
        link("/races", t("nav.races"), here.startsWith("/races")),
        link("/arenas", t("nav.arenas"), here.startsWith("/arenas")),
        link("/puzzles", t("nav.puzzles"), here.startsWith("/puzzles")),
        link("/leaderboards", t("nav.boards"), here.startsWith("/leaderboards")),
        link("/tv", t("nav.tv"), here === "/tv"),
        me && !me.guest ? link(`/players/${encodeURIComponent(me.username)}`, me.username, here === `/players/${encodeURIComponent(me.username)}`) : null,
        me ? link("/account", me.guest ? t("nav.guest") : t("nav.account"), here === "/account") : null,
      ),
      h(
        "div",
        { class: "header-tools" },
        h("button", { type: "button", class: "btn btn-ghost btn-icon", id: "settings-button", "aria-label": t("settings.title"), title: t("settings.title"), text: "⚙", onclick: () => showSettings() }),
        h("button", { type: "button", class: "btn btn-ghost btn-icon", "aria-label": t("help.title"), title: t("help.title"), text: "?", onclick: () => showHelp() }),
        me
          ? h("button", { type: "button", class: "btn btn-ghost", id: "signout", text: t("nav.signout"), onclick: async () => { await api.signOut(); navigate("/"); } })
          : here === "/signin"
            ? null
            : h("a", { href: `/signin?next=${encodeURIComponent(here)}`, class: "btn btn-primary", id: "signin-link", text: t("nav.signin") }),
      ),
    ),
  );
}

/**
 * A first visit's shell carries the client inline and names its files: fetch them once the
 * page is idle, into the cache, for the next visit, whose shell links them (web/views.py).
 */
function prefetchClient() {
  const files = document.querySelector('meta[name="scorpion:prefetch"]')?.content;
  if (!files) return;
  const later = () => {
    for (const href of files.split(" ")) document.head.append(h("link", { rel: "prefetch", href }));
  };
  addEventListener("load", () => (window.requestIdleCallback ? requestIdleCallback(later, { timeout: 5000 }) : setTimeout(later, 2000)), { once: true });
}

prefetchClient();
onNavigate(route);
// A key the server no longer knows shows the page again, signed out, rather than an error;
// but a form a signed-out player fills in (signing in, recovering an account) is the same
// signed out, and drawn again it would lose what the player is typing.
const SIGNED_OUT_FORMS = [/^\/signin$/, /^\/account\/(?:reset|verify)$/];
api.onSessionChange((_session, why) =>
  why === "stale" && !SIGNED_OUT_FORMS.some((form) => form.test(location.pathname)) ? route() : renderHeader(),
);
onLangChange(() => route());

await loadLang(getLang());
document.documentElement.lang = getLang();
route();
