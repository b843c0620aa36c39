// The page's first requests, sent as soon as the shell is read: the shell loads this module
// on its own (async, no imports), so the data a first view needs is on its way while the rest
// of the client's modules are still arriving. api.js takes these answers instead of asking
// again; i18n.js picks the page's language with the same function.

const LANGS = ["en", "it", "es", "pt"];
/** Answers taken only while fresh: a page left before it used them must not show them. */
const FRESH_MS = 3000;
const started = new Map();

/** The page's language: a saved choice, else the browser's first one the client speaks. */
export function pickLang() {
  const saved = localStorage.getItem("scorpion.lang");
  if (saved && LANGS.includes(saved)) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = wanted.toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/** The fetch of API `path` started at load, if it is still fresh (taken once), else null. */
export function takeEarly(path) {
  const early = started.get(path);
  started.delete(path);
  return early && performance.now() - early.at < FRESH_MS ? early.response : null;
}

/** Whether API `path` was asked for at load and not yet taken. */
export function isEarly(path) {
  return started.has(path);
}

function send(path) {
  const headers = { Accept: "application/json", "Accept-Language": pickLang() };
  const token = localStorage.getItem("scorpion.token");
  if (token && localStorage.getItem("scorpion.username")) headers.Authorization = `Token ${token}`;
  // As api.js asks: the token is the only credential, and answers are never cached.
  const response = fetch(`/api/v1${path}`, { headers, credentials: "omit", cache: "no-store" });
  response.catch(() => {}); // whoever takes it handles a failure
  started.set(path, { response, at: performance.now() });
}

/** Preload the modules the shell names for `way` (a game's page: "play" or "watch"). */
function preload(way) {
  const names = document.querySelector(`meta[name="scorpion:${way}"]`)?.content;
  for (const href of names ? names.split(" ") : []) {
    document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));
  }
}

const path = location.pathname;
const game = path.match(/^\/games\/([^/]+)$/);
if (game) {
  // Signed in, the game is most likely one's own to play; else it is watched.
  preload(localStorage.getItem("scorpion.token") ? "play" : "watch");
  try {
    send(`/games/${encodeURIComponent(decodeURIComponent(game[1]))}`);
  } catch {
    // a malformed address: the page says so once it loads
  }
}
if (!path.startsWith("/signin")) send("/rules"); // nearly every page draws rulesets
