// A rating's history as a small SVG line chart: drawn with SVG attributes only (the page's
// Content-Security-Policy allows no style attribute), scaled to the points' own range, with
// the first and last values and the range written beside it for those who read the text.

import { num, plural, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 120;
const PAD = { left: 44, right: 8, top: 10, bottom: 18 };

function el(name, attributes = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** A chart of `ratings` (oldest first, at least one), named `label` for screen readers. */
export function ratingChart(ratings, { label, id } = {}) {
  const low = Math.min(...ratings);
  const high = Math.max(...ratings);
  // A flat history still gets a band to sit in.
  const span = Math.max(high - low, 20);
  const bottom = (low + high) / 2 - span / 2;
  const x = (i) => PAD.left + (ratings.length === 1 ? (WIDTH - PAD.left - PAD.right) / 2 : (i * (WIDTH - PAD.left - PAD.right)) / (ratings.length - 1));
  const y = (r) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - (r - bottom) / span);
  const round = (r) => num(Math.round(r), { useGrouping: false });
  const summary = t("rating.chart_label", { label, from: round(ratings[0]), to: round(ratings.at(-1)), low: round(low), high: round(high), n: num(ratings.length) });
  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "rating-chart", role: "img", "aria-label": summary, ...(id ? { id } : {}) });
  svg.append(el("title", {}, summary));
  for (const value of [bottom + span, bottom]) {
    svg.append(el("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: "grid" }));
    svg.append(el("text", { x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end", class: "axis" }, round(value)));
  }
  const points = ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
  svg.append(el("polyline", { points, class: "line", fill: "none" }));
  svg.append(el("circle", { cx: x(ratings.length - 1), cy: y(ratings.at(-1)), r: 3.5, class: "dot" }));
  svg.append(el("text", { x: PAD.left, y: HEIGHT - 4, class: "axis" }, plural("rating.chart_games", ratings.length)));
  return svg;
}
