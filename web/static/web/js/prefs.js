// The player's preferences for the client: card size, theme, sound, animations and
// auto-finish. They live in the browser (localStorage), which is all a visitor or a guest
// has, and on the account of a signed-in player (GET and PUT /auth/preferences): read when
// the page loads and at sign-in, sent at each change (one request at a time) and at sign-up
// (a guest's become the account's). A change is applied at once, without a reload: the
// page's attributes (`data-theme`, `data-motion`) restyle it, and listeners (the board's
// size) redraw.

import * as api from "./api.js";

export const DEFAULTS = { card_size: "large", theme: "light", sound: true, animations: true, auto_finish: true };
export const CHOICES = { card_size: ["large", "medium", "small"], theme: ["light", "dark", "contrast"] };
/** The share of the window's fit that each card size takes (fit.js, board.js). */
export const CARD_SCALE = { large: 1, medium: 0.85, small: 0.7 };
const KEY = "scorpion.prefs";
/** The player whose change this browser has not yet stored on their account, if any. */
const UNSENT = "scorpion.prefs.unsent";
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
  if (!onAccount()) return;
  localStorage.setItem(UNSENT, api.session().username);
  await toAccount();
}

let sending = null; // the account's PUT on its way, if one is
let again = false; // a change made while it was, to send once it is answered

/** Send the preferences to the account: one PUT at a time, each with all of them as they
 *  are when it leaves. A PUT replaces them all, so two sent at once could be applied in
 *  the other order and leave the older on the account (three switches flipped in a row:
 *  the first PUT, answered last, turned two back on). Once the account holds the newest,
 *  the browser's mark of a change not yet sent (UNSENT) is taken off; a page left, or a
 *  request lost, before then leaves it for the next page to send. */
function toAccount() {
  if (!onAccount()) return Promise.resolve();
  if (sending) {
    again = true;
    return sending;
  }
  sending = (async () => {
    let sent = false;
    do {
      again = false;
      sent = await api.put("/auth/preferences", current, { keepalive: true }).then(
        () => true,
        () => false,
      );
    } while (again && onAccount());
    if (sent) localStorage.removeItem(UNSENT);
    sending = null;
  })();
  return sending;
}

/** Bring the account and the browser together (signed in, not a guest): a change this
 *  browser has not yet sent goes to the account; otherwise the account's copy is taken,
 *  unless the player changed one while it was on its way (that change is newer, and went to
 *  the account too). */
async function fromAccount() {
  if (!onAccount() || sending) return; // one on its way is newer than the account's copy
  if (localStorage.getItem(UNSENT) === api.session().username) return toAccount();
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
  if (why === "signup") toAccount();
  else if (why === "signin") fromAccount();
});
