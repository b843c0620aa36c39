// The board's motion: moved cards slide from where they were (about 150 ms), a completed
// suit flies to its place, and a win gets a short celebration. Every one of them is skipped
// when the reader asks for less motion (prefers-reduced-motion, or the preference off), and none changes what the
// board shows: the cards are already where they belong when an animation starts, so a
// frame that arrives mid-flight just starts the next one.
//
// Slides use the FLIP technique with the Web Animations API (no style attribute, which the
// page's Content-Security-Policy forbids): the positions of the cards a move can move are
// read before the board changes, and each card that moved is animated from its old place.

import { h } from "./dom.js";
import { SUITS } from "./cards.js";
import { animated } from "./prefs.js";

export const SLIDE_MS = 150;
const FLY_MS = 420;
const CELEBRATION_MS = 1800;

/** Whether animations are wanted at all: the player's preference and the system's. */
export function moving() {
  return animated();
}

/** Where each of the card elements `els` is on the screen now, for slide() and flyHome()
 *  after the board changes; null when motion is off. Only the cards a move can move are
 *  measured, so a frame reads a handful of boxes, not the whole board. */
export function measure(els) {
  if (!moving()) return null;
  return els.filter(Boolean).map((el) => ({ el, code: el.dataset.code, rect: el.getBoundingClientRect() }));
}

/** Slide each element of `landed` from where the card of the same code was in `before`
 *  (measure()); a card leaves its old place by the shortest way (copies in order). */
export function slide(before, landed) {
  if (!before) return;
  const from = new Map();
  for (const item of before) from.set(item.code, [...(from.get(item.code) || []), item.rect]);
  for (const el of landed) {
    const was = from.get(el?.dataset.code)?.shift();
    if (!was) continue;
    const rect = el.getBoundingClientRect();
    const dx = was.left - rect.left;
    const dy = was.top - rect.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
  }
}

/** Fly the cards of `before` (measure()) that left the board, a completed run, to `homes`:
 *  the places of the suits that were completed, in order, `suits` being those suits. */
export function flyHome(before, homes, suits) {
  if (!before) return;
  suits.forEach((suit, i) => {
    const home = homes[i];
    if (!home) return;
    const goal = home.getBoundingClientRect();
    const gone = before.filter(({ el }) => !el.isConnected && el.classList.contains(`suit-${suit}`));
    gone.forEach(({ el, rect }, n) => {
      const ghost = el.cloneNode(true);
      ghost.classList.add("flying");
      ghost.removeAttribute("data-key");
      ghost.setAttribute("aria-hidden", "true");
      ghost.style.setProperty("--x", `${rect.left}px`);
      ghost.style.setProperty("--y", `${rect.top}px`);
      ghost.style.setProperty("--w", `${rect.width}px`);
      document.body.append(ghost);
      const dx = goal.left - rect.left;
      const dy = goal.top - rect.top;
      const scale = goal.width / rect.width;
      const flight = ghost.animate(
        [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.6 }],
        { duration: FLY_MS, delay: n * 18, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" },
      );
      flight.onfinish = flight.oncancel = () => ghost.remove();
    });
  });
}

/** A short celebration over `root` for a win: suits rain down and the completed suits
 *  bounce. Decorative only (hidden from screen readers; the page announces the win). */
export function celebrate(root) {
  if (!moving()) return;
  const burst = h(
    "div",
    { class: "celebration", "aria-hidden": "true" },
    Array.from({ length: 28 }, (_, i) => {
      const suit = "SHDC"[i % 4];
      return h("span", { class: `spark suit-${suit}`, text: SUITS[suit], vars: { "--x": `${(i * 37) % 100}%`, "--d": `${(i % 7) * 90}ms`, "--r": `${((i * 53) % 360) - 180}deg` } });
    }),
  );
  root.classList.add("celebrate");
  root.append(burst);
  setTimeout(() => {
    burst.remove();
    root.classList.remove("celebrate");
  }, CELEBRATION_MS);
}
