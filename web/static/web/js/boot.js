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

// The API's answers the shell carries inline (a game's page: the game and the rulesets, as
// the API answers an anonymous reader), for the page's first view only.
const carried = new Map();
try {
  const data = document.getElementById("scorpion-answers");
  for (const [path, body] of Object.entries(data ? JSON.parse(data.textContent) : {})) carried.set(path, body);
} catch {
  // unreadable: the page asks the API
}

/** The answer to API `path` the shell carried, if any (taken once), else undefined. */
export function takeCarried(path) {
  const body = carried.get(path);
  carried.delete(path);
  return body;
}

/** Whether the shell carried an answer to API `path` that nobody took yet. */
export function isCarried(path) {
  return carried.has(path);
}

/** Forget what the shell carried: it was for the page it came with, not the next one. */
export function dropCarried() {
  carried.clear();
}

/** The fetch of API `path` started at load, if it is still fresh (taken once), else null:
 *  `{response, token}`, the token it was sent with (null: none). */
export function takeEarly(path) {
  const early = started.get(path);
  started.delete(path);
  return early && performance.now() - early.at < FRESH_MS ? early : null;
}

/** Whether API `path` was asked for at load and not yet taken. */
export function isEarly(path) {
  return started.has(path);
}

function send(path) {
  const headers = { Accept: "application/json", "Accept-Language": pickLang() };
  const stored = localStorage.getItem("scorpion.token");
  const token = stored && localStorage.getItem("scorpion.username") ? stored : null;
  if (token) headers.Authorization = `Token ${token}`;
  // As api.js asks: the token is the only credential, and answers are never cached.
  const response = fetch(`/api/v1${path}`, { headers, credentials: "omit", cache: "no-store" });
  response.catch(() => {}); // whoever takes it handles a failure
  started.set(path, { response, token, at: performance.now() });
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
const signedIn = Boolean(localStorage.getItem("scorpion.token") && localStorage.getItem("scorpion.username"));
if (game) {
  // Signed in, the game is most likely one's own to play; else it is watched.
  preload(signedIn ? "play" : "watch");
  try {
    const wanted = `/games/${encodeURIComponent(decodeURIComponent(game[1]))}`;
    // Carried by the shell (views/game.js asks again, once the board is drawn, only when
    // a signed-in visitor's copy might show more): no request.
    if (!carried.has(wanted)) send(wanted);
  } catch {
    // a malformed address: the page says so once it loads
  }
}
// Nearly every page draws rulesets.
if (!path.startsWith("/signin") && !carried.has("/rules")) send("/rules");
