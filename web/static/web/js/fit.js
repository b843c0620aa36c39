// How big the cards are, and how far apart a column's cards sit: pure arithmetic on the
// room the page gives the board, so that the tallest column of a fresh deal fits the window
// without scrolling in every ruleset (double's ten columns of up to ten cards included), and
// cards grow on large screens.
//
// A card is 5:7. A column is one card high, plus DOWN_STEP of a card's width for each
// face-down card and `step` for each face-up card above the first. A fresh deal is laid out
// with room for the corner index (`least`) and more (up to `most`); a column that grows past
// what the window holds at `least` overlaps more, as solitaire apps do, whatever its length:
// its step is what the room left divided among its cards (never under `floorStep`, a sliver
// of each card that still shows where it is).

const RATIO = 1.4; // a card's height over its width
const DOWN_STEP = 0.1; // face-down cards are packed tighter (as in app.css)
const MIN_WIDTH = 30;
const MAX_WIDTH = 180;
const FRESH_SLACK = 1.1; // a fresh deal is laid out a little looser than packed tight
// Under the cards: the tableau's padding (12 px) and the page's margin (12, app.css), the
// 4 px that the outline of a column (.col::before) adds above its first card, and 2 of rounding.
const BOTTOM_PX = 30;

/** The corner index's size (app.css: 25% of the card's width, 9 to 24 px). */
function index(width) {
  return Math.min(24, Math.max(9, width * 0.25));
}

/** The least step: the corner index and a little air above the next card. */
export function leastStep(width) {
  return index(width) * 1.2 + width * 0.05;
}

/** The largest step: a third of the card, more on small cards (easier to read and to tap). */
export function mostStep(width) {
  return Math.max(leastStep(width) * 1.25, width * (width < 80 ? 0.55 : 0.3));
}

/** The least step of all, for a column longer than the window holds at `leastStep`. */
export function floorStep(width) {
  return Math.max(3, width * 0.05);
}

/** The gap between columns for a viewport `viewport` px wide (app.css's old clamp). */
function gapFor(viewport) {
  return Math.min(14, Math.max(3, viewport * 0.011));
}

/** The height of a column of `down` face-down and `up` face-up cards at `step`. */
export function columnHeight(width, down, up, step) {
  if (!down && !up) return width * RATIO;
  return width * RATIO + down * width * DOWN_STEP + Math.max(0, up - 1) * step;
}

/** The board's height for a fresh deal of `rules` at card width `width`: the top row
 *  (reserve, cells, completed suits), its gap, and the tallest column. */
function freshHeight(rules, width, gap) {
  const tallest = Math.max(
    ...rules.layout.map(({ face_down: down, face_up: up }) => columnHeight(width, down, up, leastStep(width) * FRESH_SLACK)),
  );
  return width * RATIO + gap * 1.6 + tallest + BOTTOM_PX;
}

/**
 * The card width for a board of `rules` given `width` px of room across, `height` px from
 * the board's top to the window's bottom, in a viewport `viewport` px wide: the largest
 * (up to MAX_WIDTH) whose columns fit across and whose fresh deal fits down, times `scale`
 * (the player's card size, prefs.js).
 */
export function cardWidth(rules, { width, height, viewport, scale = 1 }) {
  const gap = gapFor(viewport);
  const cols = rules.columns;
  let card = Math.floor(Math.min(MAX_WIDTH, (width - (cols - 1) * gap) / cols));
  while (card > MIN_WIDTH && freshHeight(rules, card, gap) > height) card -= 1;
  card = Math.max(MIN_WIDTH, Math.floor(card * scale));
  return { width: card, gap, board: cols * card + (cols - 1) * gap };
}

/**
 * Each column's step for `columns` (the Game's, null for a face-down card) at the fitted
 * `geometry` ({width, gap, available}): as loose as `mostStep` allows, packed tighter when
 * a long column would run past the window: down to `leastStep`, and below it (to
 * `floorStep`) for a column that would not fit even then.
 */
export function columnSteps(columns, { width, gap, available }) {
  const floor = floorStep(width);
  const most = mostStep(width);
  const room = available - width * RATIO - gap * 1.6 - BOTTOM_PX;
  return columns.map((column) => {
    const down = column.filter((code) => !code).length;
    const up = column.length - down;
    if (up <= 1) return most;
    const spare = room - width * RATIO - down * width * DOWN_STEP;
    return Math.min(most, Math.max(floor, spare / (up - 1)));
  });
}
