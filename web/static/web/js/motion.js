// The board's motion: moved cards slide from where they were (about 150 ms), a completed
// suit flies to its place, and a win gets a short celebration. Every one of them is skipped
// when the reader asks for less motion (prefers-reduced-motion), and none changes what the
// board shows: the cards are already where they belong when an animation starts, so a
// frame that arrives mid-flight just starts the next one.
//
// Slides use the FLIP technique with the Web Animations API (no style attribute, which the
// page's Content-Security-Policy forbids): the positions of the face-up cards are read
// before the board changes, and each card that moved is animated from its old place.

import { h } from "./dom.js";
import { SUITS } from "./cards.js";

export const SLIDE_MS = 150;
const FLY_MS = 420;
const CELEBRATION_MS = 1800;
const still = matchMedia("(prefers-reduced-motion: reduce)");

/** Whether animations are wanted at all. */
export function moving() {
  return !still.matches;
}

/** The face-up cards of `root` by identity (code, then which copy: double has two) with
 *  where each is on the screen now; null when motion is off. */
export function positions(root) {
  if (!moving()) return null;
  const found = new Map();
  const seen = {};
  for (const el of root.querySelectorAll(".card.up[data-code]:not(.home)")) {
    const code = el.dataset.code;
    seen[code] = (seen[code] || 0) + 1;
    found.set(`${code}#${seen[code]}`, { el, rect: el.getBoundingClientRect() });
  }
  return found;
}

/** Slide every card of `root` that moved since `before` (positions()) from its old place. */
export function slide(root, before) {
  const now = positions(root);
  if (!now || !before) return;
  for (const [key, { el, rect }] of now) {
    const was = before.get(key)?.rect;
    if (!was) continue;
    const dx = was.left - rect.left;
    const dy = was.top - rect.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
  }
}

/** Fly the cards that left the tableau since `before` (a completed run) to their suits'
 *  places among the completed suits, `suits` being the suits that left, in order. */
export function flyHome(root, before, suits) {
  if (!before) return;
  const now = positions(root);
  const homes = [...root.querySelectorAll(".home.card.up")].slice(-suits.length);
  suits.forEach((suit, i) => {
    const home = homes[i];
    if (!home) return;
    const goal = home.getBoundingClientRect();
    const gone = [...before].filter(([key, { el }]) => !now.has(key) && el.classList.contains(`suit-${suit}`));
    gone.forEach(([, { el, rect }], n) => {
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
