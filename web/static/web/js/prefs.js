// The player's preferences for the client: card size, theme, sound, animations and
// auto-finish. They live in the browser (localStorage), which is all a visitor or a guest
// has, and on the account of a signed-in player (GET and PUT /auth/preferences): read when
// the page loads and at sign-in, sent at each change and at sign-up (a guest's become the
// account's). A change is applied at once, without a reload: the page's attributes
// (`data-theme`, `data-motion`) restyle it, and listeners (the board's size) redraw.

import * as api from "./api.js";

export const DEFAULTS = { card_size: "large", theme: "light", sound: true, animations: true, auto_finish: true };
export const CHOICES = { card_size: ["large", "medium", "small"], theme: ["light", "dark", "contrast"] };
/** The share of the window's fit that each card size takes (fit.js, board.js). */
export const CARD_SCALE = { large: 1, medium: 0.85, small: 0.7 };
const KEY = "scorpion.prefs";
const listeners = new Set();
let current = clean(stored());
let edits = 0; // the player's changes on this page, so that an older copy never undoes one

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

/** `raw` with every preference it lacks, or holds a value not offered, at its default. */
function clean(raw) {
  const out = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS)) {
    const value = raw?.[name];
    if (CHOICES[name] ? CHOICES[name].includes(value) : typeof value === "boolean") out[name] = value;
  }
  return out;
}

/** The preferences now. */
export function prefs() {
  return current;
}

/** `listener(prefs)` after every change. */
export function onPrefsChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether cards move (the preference, and the system's reduced motion). */
export function animated() {
  return current.animations && !matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function apply() {
  const root = document.documentElement;
  root.dataset.theme = current.theme;
  root.dataset.motion = current.animations ? "on" : "off";
}

function adopt(next) {
  const changed = JSON.stringify(next) !== JSON.stringify(current);
  current = next;
  localStorage.setItem(KEY, JSON.stringify(current));
  apply();
  if (changed) for (const listener of listeners) listener(current);
}

function onAccount() {
  const me = api.session();
  return Boolean(me && !me.guest);
}

/** Change some preferences: applied at once, kept in the browser and, signed in, on the
 *  account (a failure to store them there leaves them applied here). */
export async function setPrefs(partial) {
  edits += 1;
  adopt(clean({ ...current, ...partial }));
  if (onAccount()) await api.put("/auth/preferences", current).catch(() => {});
}

/** Take the account's preferences (signed in, not a guest), unless the player changed one
 *  while they were on their way: that change is newer, and went to the account too. */
async function fromAccount() {
  if (!onAccount()) return;
  const before = edits;
  try {
    const stored = clean(await api.get("/auth/preferences"));
    if (edits === before) adopt(stored);
  } catch {
    // unreachable: the browser's stay
  }
}

apply();
// The account's copy is read once the page has loaded: the first view's requests go first,
// and until then the browser's copy (the same, unless changed elsewhere) is shown.
const later = () => setTimeout(fromAccount, 0);
if (document.readyState === "complete") later();
else addEventListener("load", later, { once: true });
api.onSessionChange((_session, why) => {
  if (why === "signup" && onAccount()) api.put("/auth/preferences", current).catch(() => {});
  else if (why === "signin") fromAccount();
});
