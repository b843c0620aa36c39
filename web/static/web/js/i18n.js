// The page's language: en, it, es or pt, from a saved choice or else the browser's. English
// is built in; the others load on demand (js/lang/<code>.js). The same language goes to the
// API as Accept-Language, so the server's messages (a refused move's reason) match the page.

import { pickLang } from "./boot.js";
import EN from "./lang/en.js";

export const LANGS = [
  ["en", "English"],
  ["it", "Italiano"],
  ["es", "Español"],
  ["pt", "Português"],
];
const KEY = "scorpion.lang";
// Literal paths, so that collectstatic rewrites them to the files' hashed names.
const LOADERS = {
  it: () => import("./lang/it.js"),
  es: () => import("./lang/es.js"),
  pt: () => import("./lang/pt.js"),
};
const loaded = { en: EN };
const listeners = new Set();
let current = pickLang();


export function getLang() {
  return current;
}

export async function loadLang(code) {
  if (!loaded[code]) loaded[code] = (await LOADERS[code]()).default;
}

/** Switch the language, remember it, and re-render (listeners). */
export async function setLang(code) {
  await loadLang(code);
  current = code;
  localStorage.setItem(KEY, code);
  document.documentElement.lang = code;
  for (const listener of listeners) listener(code);
}

export function onLangChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The string `key` in the page's language (English if missing), with {name} filled in. */
export function t(key, params = {}) {
  const text = loaded[current]?.[key] ?? EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/**
 * The plural form of `key` that suits `n` in the page's language (Intl.PluralRules:
 * `key.one`, `key.few`, `key.many`, `key.other`, falling back to `key.other`), with {n}
 * filled in as a number of that language and `params` as in t().
 */
export function plural(key, n, params = {}) {
  const form = formatter(Intl.PluralRules).select(n);
  const strings = loaded[current] || EN;
  const chosen = `${key}.${form}` in strings ? `${key}.${form}` : `${key}.other`;
  return t(chosen, { n: num(n), ...params });
}

const formatters = new Map();

/** An Intl formatter of `kind` for the page's language and `options`, made once: making
 *  one costs tens of microseconds, and a live frame formats several numbers. */
function formatter(kind, options) {
  const key = `${kind.name}|${current}|${options ? JSON.stringify(options) : ""}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new kind(current, options)));
  return made;
}

/**
 * A number in the page's language. An integer under a thousand is written the same in every
 * language the client speaks (Latin digits, no grouping, "-"), so it skips Intl.NumberFormat:
 * the first one a page makes costs 20 to 40 ms, which a first board would otherwise wait on.
 */
export function num(value, options) {
  if (!options && Number.isInteger(value) && Math.abs(value) < 1000) return String(value);
  return formatter(Intl.NumberFormat, options).format(value);
}

/** A date and time in the page's language. */
export function when(iso, options = { dateStyle: "medium", timeStyle: "short" }) {
  return formatter(Intl.DateTimeFormat, options).format(new Date(iso));
}

/** "3 minutes ago", in the page's language. */
export function ago(iso) {
  const seconds = Math.round((new Date(iso) - Date.now()) / 1000);
  const format = formatter(Intl.RelativeTimeFormat, { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, "second");
  if (abs < 3600) return format.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return format.format(Math.round(seconds / 3600), "hour");
  return format.format(Math.round(seconds / 86400), "day");
}
