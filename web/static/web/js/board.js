// The board: columns of CSS-drawn cards, the reserve, the cells and the completed suits.
//
// It renders any Game of the API. When `interactive`, a face-up card (or a group headed by
// it) is moved by click-to-pick then click-to-drop, by drag and drop (pointer events: mouse,
// pen and touch), or from the keyboard (arrows move the focus, Enter/Space pick and drop,
// digits drop on a column, Escape cancels). Legal targets come from /moves; a drop anywhere
// else is still sent, so that the server's own (localised) reason for refusing it is shown.

import { h, replace } from "./dom.js";
import { cardName, parse, short, suitName, SUITS } from "./cards.js";
import { t } from "./i18n.js";

const DRAG_THRESHOLD_PX = 6;
const MAX_STEP = 0.3; // a face-up card shows up to this share of its width below the next one
const DOWN_STEP = 0.1; // face-down cards are packed tighter (as in app.css)

export class Board {
  /**
   * @param rules the ruleset (GET /rules entry): columns, cells, sequences_to_win, …
   * @param onAction async (action) => void, for a move; null for a board only to look at
   */
  constructor({ rules, onAction = null, label }) {
    this.rules = rules;
    this.onAction = onAction;
    this.interactive = Boolean(onAction);
    this.game = null;
    this.moves = [];
    this.picked = null; // {col, index} or {cell}
    this.cursor = null; // data-key of the element that holds the board's tab stop
    this.marks = new Map(); // data-key → class to add on the next render (last move, hint)
    this.columnEls = []; // per column: the signature it was drawn for, and its element
    this.el = h("section", { class: "board", "aria-label": label || t("board.label") });
    this.el.classList.toggle("interactive", this.interactive);
    this.top = h("div", { class: "board-top" });
    this.tableau = h("div", { class: "tableau", role: "group", "aria-label": t("board.tableau") });
    this.el.append(this.top, this.tableau);
    if (this.interactive) this.listen();
    this.fit = () => {
      this.geometry = null;
      this.layout();
    };
    addEventListener("resize", this.fit);
  }

  destroy() {
    removeEventListener("resize", this.fit);
    this.el.remove();
  }

  // --- rendering ----------------------------------------------------------------------------

  /** Show `game`; `event` (with `previous`, the game before it) marks the last move. */
  update(game, { event = null, previous = null } = {}) {
    this.game = game;
    this.picked = null;
    this.marks = event && previous ? lastMoveMarks(event, previous, game, this.rules) : new Map();
    this.render();
  }

  setMoves(moves) {
    this.moves = moves || [];
    this.render();
  }

  /** Show where a move goes (a hint): its card(s) and its target pulse for a moment. */
  showHint(move) {
    const marks = new Map();
    if (move.type === "move") {
      const from = move.cell ? `x${move.cell}` : `c${move.from}:${move.index}`;
      marks.set(from, "hint");
      marks.set(`col${move.to}`, "hint-target");
    } else if (move.type === "deal") marks.set("reserve", "hint");
    this.marks = marks;
    this.render();
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => {
      this.marks = new Map();
      this.render();
    }, 2500);
  }

  /** Draw the board again; the keyboard focus, if it was on the board, stays on its cursor. */
  render() {
    const game = this.game;
    if (!game) return;
    const hadFocus = this.el.contains(document.activeElement);
    const columns = game.columns;
    const targets = this.targets();
    const mark = (key) => this.marks.get(key) || "";
    // The top row, on the tableau's grid: the reserve (backs only) or the three_blind_mice
    // cells on the left, one slot per suit to complete on the right.
    const reserve = this.rules.reserve
      ? h(
          "div",
          { class: `pile reserve ${mark("reserve")}`, "data-key": "reserve" },
          h("span", { class: "pile-label", text: t("board.reserve") }),
          game.reserve
            ? h(
                "div",
                { class: "stack", role: "img", "aria-label": t("board.reserve_left", { n: game.reserve }) },
                Array.from({ length: game.reserve }, () => h("div", { class: "card down" })),
              )
            : h("div", { class: "card empty", role: "img", "aria-label": t("board.reserve_empty") }),
        )
      : null;
    const cells = (game.cells || []).map((code, i) => {
      const key = `x${i + 1}`;
      const picked = this.picked?.cell === i + 1;
      return h(
        "div",
        { class: "pile cell" },
        h("span", { class: "pile-label", text: t("board.cell", { n: i + 1 }) }),
        code
          ? this.cardEl(code, key, { picked, extra: mark(key) })
          : h("div", { class: "card empty", role: "img", "aria-label": t("board.cell_empty") }),
      );
    });
    const slots = this.rules.sequences_to_win;
    const first = columns.length - slots + 1;
    const done = h(
      "div",
      { class: "pile foundation", role: "list", "aria-label": t("board.completed") },
      Array.from({ length: slots }, (_, i) => {
        const suit = game.removed[i];
        const el = suit
          ? h(
              "div",
              { class: `card up mini suit-${suit}`, role: "listitem", "aria-label": t("board.completed_suit", { suit: suitName(suit) }) },
              h("span", { class: "pip", "aria-hidden": "true", text: SUITS[suit] }),
            )
          : h("div", { class: "card empty", role: "listitem", "aria-label": t("board.not_yet") });
        el.style.setProperty("grid-column-start", String(Math.max(1, first + i)));
        return el;
      }),
    );
    replace(this.top, reserve, cells.length ? h("div", { class: "cells" }, cells) : null, done);

    this.el.style.setProperty("--cols", columns.length);
    // Only the columns that changed are drawn again (a move touches two or three): the
    // others keep their elements, so a live frame costs little and focus stays put.
    if (this.columnEls.length !== columns.length) {
      this.columnEls = columns.map(() => ({ signature: null, el: null }));
      this.tableau.replaceChildren();
    }
    columns.forEach((column, c) => {
      const col = c + 1;
      const target = targets.has(col);
      const picked = this.picked && !this.picked.cell && this.picked.col === col ? this.picked.index : -1;
      const marks = column.map((_, index) => mark(`c${col}:${index}`)).join();
      const signature = `${column.join()}|${target}|${picked}|${mark(`col${col}`)}|${marks}`;
      const cached = this.columnEls[c];
      if (cached.signature === signature && cached.el) return;
      const el = this.columnEl(column, col, { target, picked, mark });
      if (cached.el) this.tableau.replaceChild(el, cached.el);
      else this.tableau.append(el);
      this.columnEls[c] = { signature, el };
    });
    this.rovingTabStop();
    this.layout();
    if (hadFocus) this.focusKey(this.cursor);
    if (!this.drawn) {
      this.drawn = true;
      performance.mark("scorpion:board-drawn"); // bench/web.py times the first board by it
    }
  }

  columnEl(column, col, { target, picked, mark }) {
    const el = h("div", {
      class: `col ${target ? "target" : ""} ${mark(`col${col}`)}`,
      "data-col": col,
      role: "group",
      "aria-label": t("board.column", { n: col, count: column.length }),
    });
    if (!column.length) {
      el.append(
        h("button", {
          type: "button",
          class: "slot",
          "data-key": `s${col}`,
          "data-col": col,
          tabindex: "-1",
          "aria-label": t("board.empty_column", { n: col }) + (target ? `, ${t("board.target")}` : ""),
          disabled: !this.interactive || undefined,
        }),
      );
    }
    const last = column.length - 1;
    column.forEach((code, index) => {
      if (!code) {
        el.append(h("div", { class: "card down", role: "img", "aria-label": t("card.down") }));
        return;
      }
      el.append(
        this.cardEl(code, `c${col}:${index}`, {
          picked: picked >= 0 && index >= picked,
          extra: mark(`c${col}:${index}`),
          target: target && index === last,
          covered: index !== last,
        }),
      );
    });
    return el;
  }

  cardEl(code, key, { picked = false, extra = "", target = false, covered = false } = {}) {
    const { rank, suit } = parse(code);
    const face = short(code);
    const props = {
      class: `card up suit-${suit} ${picked ? "picked" : ""} ${extra}`,
      "data-key": key,
      "aria-label": cardName(code) + (target ? `, ${t("board.target")}` : ""),
    };
    // A covered card shows only its top strip: its centre and far corner are not drawn
    // (a drag lifts copies of the cards above it, which cover it the same way).
    const court = "JQK".includes(rank);
    const content = [
      h("span", { class: "idx", "aria-hidden": "true", text: face }),
      covered ? null : h("span", { class: `pip ${court ? "court" : ""}`, "aria-hidden": "true", text: court ? rank : SUITS[suit] }),
      covered ? null : h("span", { class: "idx idx-end", "aria-hidden": "true", text: face }),
    ];
    if (!this.interactive) return h("div", { ...props, role: "img" }, content);
    return h(
      "button",
      { ...props, type: "button", tabindex: "-1", "aria-pressed": picked ? "true" : "false" },
      content,
    );
  }

  /**
   * Pack long columns so the board fits the window's height, within readable limits. The
   * board's geometry is measured once (and again after a resize), so drawing a live frame
   * never forces the browser to lay the page out in the middle of it.
   */
  layout() {
    const game = this.game;
    if (!game) return;
    if (!this.geometry) {
      const first = this.tableau.firstElementChild;
      const width = first ? first.clientWidth : 0;
      if (!width) return;
      const top = this.tableau.getBoundingClientRect().top + scrollY;
      this.geometry = { width, available: Math.max(innerHeight - top - 16, width * 4) };
      this.el.style.setProperty("--card-w", `${width}px`);
    }
    const { width, available } = this.geometry;
    // The corner index (app.css: 25% of the card's width, 9 to 24 px) must stay readable:
    // small cards need a larger share of their width than big ones.
    const index = Math.min(24, Math.max(9, width * 0.25));
    const least = index * 1.2 + width * 0.05;
    const most = Math.max(width * MAX_STEP, least * 1.25);
    game.columns.forEach((column, c) => {
      const down = column.filter((code) => !code).length;
      const up = column.length - down;
      let step = most;
      if (up > 1) {
        const room = available - width * 1.4 - down * width * DOWN_STEP;
        step = Math.min(most, Math.max(least, room / (up - 1)));
      }
      const el = this.columnEls[c]?.el;
      if (el) el.style.setProperty("--step", `${step.toFixed(1)}px`);
    });
  }

  // --- picking and dropping --------------------------------------------------------------------

  targets() {
    const p = this.picked;
    if (!p) return new Set();
    return new Set(
      this.moves
        .filter((m) =>
          p.cell ? m.cell === p.cell : m.from === p.col && m.index === p.index,
        )
        .map((m) => m.to),
    );
  }

  pick(picked) {
    this.picked = picked;
    this.render();
    const count = picked.cell ? 1 : this.game.columns[picked.col - 1].length - picked.index;
    const code = picked.cell ? this.game.cells[picked.cell - 1] : this.game.columns[picked.col - 1][picked.index];
    const targets = [...this.targets()];
    return { code, count, targets };
  }

  unpick() {
    if (!this.picked) return;
    this.picked = null;
    this.render();
  }

  async drop(col) {
    const p = this.picked;
    if (!p || !this.game) return;
    this.picked = null;
    const action = p.cell
      ? { type: "move", cell: p.cell, to: col, card: this.game.cells[p.cell - 1] }
      : { type: "move", from: p.col, index: p.index, to: col, card: this.game.columns[p.col - 1][p.index] };
    this.render();
    this.cursor = `col${col}`;
    await this.onAction(action);
  }

  /** Activate the element with data-key `key` (click, Enter or Space on it). */
  activate(key) {
    if (!key || !this.game) return;
    if (key.startsWith("x")) {
      const cell = Number(key.slice(1));
      if (this.picked?.cell === cell) this.unpick();
      else this.pickAndSay({ cell });
      return;
    }
    const col = Number(key.startsWith("s") ? key.slice(1) : key.slice(1).split(":")[0]);
    if (this.picked) {
      const same = this.picked.col === col && !this.picked.cell;
      if (same) this.unpick();
      else this.drop(col);
      return;
    }
    if (key.startsWith("c")) this.pickAndSay({ col, index: Number(key.split(":")[1]) });
  }

  pickAndSay(picked) {
    const { code, count, targets } = this.pick(picked);
    this.el.dispatchEvent(
      new CustomEvent("picked", { detail: { code, count, targets } }),
    );
  }

  /** The first legal move of a card, for a double click. */
  quickMove(key) {
    if (!key.startsWith("c") && !key.startsWith("x")) return;
    const cell = key.startsWith("x") ? Number(key.slice(1)) : null;
    const [col, index] = cell ? [null, null] : key.slice(1).split(":").map(Number);
    const options = this.moves.filter((m) =>
      cell ? m.cell === cell : m.from === col && m.index === index,
    );
    // Building on a card beats moving into an empty column.
    options.sort((a, b) => this.game.columns[a.to - 1].length === 0 ? 1 : this.game.columns[b.to - 1].length === 0 ? -1 : 0);
    if (!options.length) return;
    this.picked = cell ? { cell } : { col, index };
    this.drop(options[0].to);
  }

  // --- focus ------------------------------------------------------------------------------------

  focusables() {
    return [...this.el.querySelectorAll("button[data-key]")];
  }

  rovingTabStop() {
    if (!this.interactive) return;
    const items = this.focusables();
    if (!items.length) return;
    let current = items.find((el) => el.dataset.key === this.cursor);
    if (!current && this.cursor?.startsWith("col")) current = this.topOf(Number(this.cursor.slice(3)));
    current ??= items.find((el) => el.classList.contains("picked")) || items[0];
    for (const el of items) el.tabIndex = el === current ? 0 : -1;
    this.cursor = current.dataset.key;
  }

  /** The top card (or the empty slot) of a column. */
  topOf(col) {
    const column = this.tableau.querySelector(`.col[data-col="${col}"]`);
    const buttons = column ? column.querySelectorAll("button[data-key]") : [];
    return buttons[buttons.length - 1] || null;
  }

  focusKey(key) {
    let el = key ? this.el.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
    if (!el && key?.startsWith("col")) el = this.topOf(Number(key.slice(3)));
    else if (!el && key?.startsWith("c")) el = this.topOf(Number(key.slice(1).split(":")[0]));
    if (!el) el = this.focusables()[0];
    if (!el) return;
    for (const other of this.focusables()) other.tabIndex = -1;
    el.tabIndex = 0;
    this.cursor = el.dataset.key;
    el.focus({ preventScroll: false });
  }

  focus() {
    this.focusKey(this.cursor || "c1:0");
  }

  /** Arrow keys: left/right between columns (to their top card), up/down within one. */
  moveFocus(from, direction) {
    const key = from.dataset.key;
    const cols = this.game.columns.length;
    if (key.startsWith("x") || key === "reserve") {
      if (direction === "down") this.focusKey(`c1:0`);
      return;
    }
    const col = Number(key.startsWith("s") ? key.slice(1) : key.slice(1).split(":")[0]);
    if (direction === "left" || direction === "right") {
      const next = ((col - 1 + (direction === "left" ? -1 : 1) + cols) % cols) + 1;
      const el = this.topOf(next);
      if (el) this.focusKey(el.dataset.key);
      return;
    }
    const buttons = [...this.tableau.querySelector(`.col[data-col="${col}"]`).querySelectorAll("button[data-key]")];
    const at = buttons.indexOf(from);
    const next = buttons[at + (direction === "up" ? -1 : 1)];
    if (next) this.focusKey(next.dataset.key);
    else if (direction === "up" && this.game.cells) {
      const cell = this.top.querySelector("button[data-key]");
      if (cell) this.focusKey(cell.dataset.key);
    }
  }

  // --- input ------------------------------------------------------------------------------------

  listen() {
    this.el.addEventListener("click", (event) => {
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      const target = event.target.closest("[data-key], .col");
      if (!target) return this.unpick();
      if (target.dataset.key) {
        this.cursor = target.dataset.key;
        this.activate(target.dataset.key);
      } else if (this.picked && target.dataset.col) this.drop(Number(target.dataset.col));
    });
    this.el.addEventListener("dblclick", (event) => {
      const target = event.target.closest("button[data-key]");
      if (target) this.quickMove(target.dataset.key);
    });
    this.el.addEventListener("keydown", (event) => {
      const from = event.target.closest("button[data-key]");
      if (!from || event.altKey || event.ctrlKey || event.metaKey) return;
      const arrows = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };
      if (arrows[event.key]) {
        event.preventDefault();
        this.moveFocus(from, arrows[event.key]);
      } else if (event.key === "Escape" && this.picked) {
        event.preventDefault();
        event.stopPropagation();
        this.unpick();
        this.focusKey(from.dataset.key);
      } else if (/^[0-9]$/.test(event.key)) {
        const col = event.key === "0" ? 10 : Number(event.key);
        if (col > this.game.columns.length) return;
        event.preventDefault();
        if (this.picked) this.drop(col);
        else {
          const el = this.topOf(col);
          if (el) this.focusKey(el.dataset.key);
        }
      }
    });
    this.el.addEventListener("pointerdown", (event) => this.dragStart(event));
  }

  dragStart(event) {
    if (event.button !== 0) return;
    const card = event.target.closest("button.card[data-key]");
    if (!card) return;
    const key = card.dataset.key;
    const start = { x: event.clientX, y: event.clientY };
    let ghost = null;
    let offset = null;
    const move = (e) => {
      if (!ghost) {
        if (Math.hypot(e.clientX - start.x, e.clientY - start.y) < DRAG_THRESHOLD_PX) return;
        const rect = card.getBoundingClientRect(); // before picking re-renders the card
        offset = { x: start.x - rect.left, y: start.y - rect.top };
        ghost = this.beginDrag(key, rect.width);
      }
      e.preventDefault();
      ghost.style.setProperty("--x", `${e.clientX - offset.x}px`);
      ghost.style.setProperty("--y", `${e.clientY - offset.y}px`);
      const over = this.columnAt(e.clientX, e.clientY, ghost);
      for (const col of this.tableau.children) col.classList.toggle("over", col === over);
    };
    const up = (e) => {
      cleanup();
      if (!ghost) return;
      this.suppressClick = true;
      setTimeout(() => (this.suppressClick = false), 0);
      const over = this.columnAt(e.clientX, e.clientY, ghost);
      ghost.remove();
      this.el.classList.remove("dragging");
      if (over && Number(over.dataset.col) !== this.picked?.col) this.drop(Number(over.dataset.col));
      else this.unpick();
    };
    const cleanup = () => {
      removeEventListener("pointermove", move);
      removeEventListener("pointerup", up);
      removeEventListener("pointercancel", up);
    };
    addEventListener("pointermove", move, { passive: false });
    addEventListener("pointerup", up);
    addEventListener("pointercancel", up);
  }

  /** Pick the dragged card and float a copy of its group under the pointer. */
  beginDrag(key, width) {
    const picked = key.startsWith("x")
      ? { cell: Number(key.slice(1)) }
      : { col: Number(key.slice(1).split(":")[0]), index: Number(key.split(":")[1]) };
    this.pick(picked);
    const source = this.el.querySelector(`[data-key="${CSS.escape(key)}"]`);
    const cards = [];
    for (let el = source; el; el = el.nextElementSibling) {
      cards.push(el.cloneNode(true));
      if (picked.cell) break;
    }
    const ghost = h("div", { class: "drag-ghost col", "aria-hidden": "true", vars: { "--w": `${width}px`, "--card-w": `${width}px` } }, cards);
    const column = source.closest(".col");
    if (column) ghost.style.setProperty("--step", column.style.getPropertyValue("--step"));
    document.body.append(ghost);
    this.el.classList.add("dragging");
    return ghost;
  }

  columnAt(x, y, ghost) {
    ghost.hidden = true;
    const under = document.elementFromPoint(x, y);
    ghost.hidden = false;
    return under?.closest(".tableau > .col") || null;
  }
}

/** Which elements to mark after `event` turned `previous` into `game`. */
function lastMoveMarks(event, previous, game, rules) {
  const marks = new Map();
  const data = event.data || {};
  if (event.type === "moved") {
    const to = data.to;
    const moved = data.cell ? 1 : previous.columns[data.from - 1].length - data.index;
    const column = game.columns[to - 1];
    const removedHere = (event.effects?.removed || []).some((r) => r.column === to);
    if (!removedHere) {
      for (let i = Math.max(0, column.length - moved); i < column.length; i += 1) {
        marks.set(`c${to}:${i}`, "last");
      }
    }
    if (!data.cell) marks.set(`col${data.from}`, "last-from");
  } else if (event.type === "dealt") {
    for (const col of rules.reserve_to) {
      const column = game.columns[col - 1];
      if (column.length) marks.set(`c${col}:${column.length - 1}`, "last");
    }
  }
  for (const flip of event.effects?.flipped || []) {
    const column = game.columns[flip.column - 1];
    const index = column.lastIndexOf(flip.card);
    if (index >= 0) marks.set(`c${flip.column}:${index}`, "flipped");
  }
  return marks;
}
