// The board: columns of CSS-drawn cards, the reserve, the cells and the completed suits.
//
// It renders any Game of the API, and draws only what changed: each card keeps its element
// while it stays where it is, so a click that picks a card leaves that very element under
// the pointer (a double click then fires), the keyboard focus stays put, and a live frame
// costs little. The cards are sized to fit the window (fit.js) and grow on large screens.
// Moves slide into place, completed suits fly home and a win gets a short celebration
// (motion.js), all skipped under prefers-reduced-motion.
//
// When `interactive`, a face-up card (or a group headed by it) is moved by click-to-pick
// then click-to-drop, by double click or, on touch, by one tap (its best move), by drag and
// drop (pointer events), or from the keyboard (arrows move the focus, Enter/Space pick and
// drop, digits drop on a column, Escape cancels). Legal targets come from /moves; a drop
// anywhere else is still sent, so that the server's own (localised) reason is shown.

import { h, replace } from "./dom.js";
import { cardName, parse, short, suitName, SUITS } from "./cards.js";
import { cardWidth, columnSteps, leastStep } from "./fit.js";
import { plural, t } from "./i18n.js";
import { celebrate, flyHome, measure, slide, SLIDE_MS } from "./motion.js";
import { CARD_SCALE, onPrefsChange, prefs } from "./prefs.js";

const DRAG_THRESHOLD_PX = 6;

export class Board {
  /**
   * @param rules the ruleset (GET /rules entry): columns, layout, cells, sequences_to_win, …
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
    this.marks = new Map(); // data-key → class to add (last move, hint)
    this.columns = []; // per column: {el, cards: [element], slot}
    this.topSignature = null;
    this.el = h("section", { class: "board", "aria-label": label || t("board.label") });
    this.el.classList.toggle("interactive", this.interactive);
    this.top = h("div", { class: "board-top" });
    this.tableau = h("div", { class: "tableau", role: "group", "aria-label": t("board.tableau") });
    this.el.append(this.top, this.tableau);
    this.el.style.setProperty("--cols", rules.columns);
    if (this.interactive) this.listen();
    this.refit = () => {
      this.geometry = null;
      this.layout();
    };
    addEventListener("resize", this.refit);
    this.unwatchPrefs = onPrefsChange(this.refit); // a new card size
    // Something above the board that appears or grows after the board was fitted (a banner
    // once the solver answers, a line of tools that wraps) moves it down, and its last cards
    // below the window: the page's height changes then, and the board is fitted again if its
    // top moved. Read after layout, so it costs no layout of its own.
    this.moved = new ResizeObserver(() => {
      if (!this.geometry || !this.el.isConnected) return;
      if (Math.abs(this.el.getBoundingClientRect().top + scrollY - this.geometry.top) > 1) this.refit();
    });
    this.moved.observe(document.body);
  }

  destroy() {
    removeEventListener("resize", this.refit);
    this.moved.disconnect();
    this.unwatchPrefs();
    clearTimeout(this.hintTimer);
    this.el.remove();
  }

  // --- rendering ----------------------------------------------------------------------------

  /**
   * Show `game`. `event` (with `previous`, the game before it) marks the last move, and
   * slides the cards it moved unless `animate` is false or the last change came less than a
   * slide ago.
   */
  update(game, { event = null, previous = null, animate = true } = {}) {
    // Moves that come faster than a slide lasts (a brisk player, a spectator catching up)
    // are shown at once: animations that could not finish would only cost frames.
    const now = performance.now();
    const brisk = now - (this.updatedAt ?? -Infinity) < SLIDE_MS;
    this.updatedAt = now;
    const before = animate && !brisk && event && previous && this.game ? measure(this.movable(event)) : null;
    this.game = game;
    this.picked = null;
    this.marks = event && previous ? lastMoveMarks(event, previous, game, this.rules) : new Map();
    this.render();
    if (!before) return;
    const data = event.data || {};
    if (event.type === "moved") {
      const count = data.cell ? 1 : previous.columns[data.from - 1].length - data.index;
      slide(before, this.columns[data.to - 1].cards.slice(-count));
    }
    const removed = (event.effects?.removed || []).map((r) => r.suit);
    if (removed.length) flyHome(before, [...this.top.querySelectorAll(".home.card.up")].slice(-removed.length), removed);
    if (previous.status === "playing" && game.status === "won") celebrate(this.el);
  }

  /** The card elements `event` may move: a move's group (or cell card), and the cards of
   *  any column a run leaves from. */
  movable(event) {
    const data = event.data || {};
    const els = [];
    if (event.type === "moved" && data.cell) els.push(this.top.querySelector(`[data-key="x${data.cell}"]`));
    else if (event.type === "moved") els.push(...(this.columns[data.from - 1]?.cards.slice(data.index) || []));
    for (const run of event.effects?.removed || []) els.push(...(this.columns[run.column - 1]?.cards || []));
    return [...new Set(els)].filter((el) => el?.classList.contains("up"));
  }

  setMoves(moves) {
    this.moves = moves || [];
    this.render();
  }

  /** Show where a move goes (a hint): its card(s) and its target pulse for a moment. */
  showHint(move) {
    const marks = new Map();
    if (move.type === "move") {
      marks.set(move.cell ? `x${move.cell}` : `c${move.from}:${move.index}`, "hint");
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

  /** Bring the board up to date with the state it holds; only what changed is touched. */
  render() {
    const game = this.game;
    if (!game) return;
    const hadFocus = this.el.contains(document.activeElement);
    const targets = this.targets();
    this.renderTop(game);
    // The room is measured before the cards are in: laying out an empty tableau costs
    // little, and the cards are then laid out once, at their size, when the page paints.
    if (!this.geometry) this.measure();
    if (this.columns.length !== game.columns.length) {
      this.columns = game.columns.map((_, c) => ({ el: h("div", { class: "col", "data-col": c + 1, role: "group" }), cards: [], slot: null }));
      this.tableau.replaceChildren(...this.columns.map((column) => column.el));
    }
    game.columns.forEach((codes, c) => this.renderColumn(c + 1, codes, targets));
    this.rovingTabStop();
    this.layout();
    if (hadFocus && !this.el.contains(document.activeElement)) this.focusKey(this.cursor);
    if (!this.drawn) {
      this.drawn = true;
      performance.mark("scorpion:board-drawn"); // bench/web.py times the first board by it
    }
  }

  /** The reserve (or the cells) and the completed suits, drawn again only when changed. */
  renderTop(game) {
    const picked = this.picked?.cell || 0;
    const signature = JSON.stringify([game.reserve, game.reserve_cards, game.cells, game.removed, picked, this.marks.get("reserve"), this.marks.get("x1"), this.marks.get("x2")]);
    if (signature === this.topSignature) return;
    this.topSignature = signature;
    const mark = (key) => this.marks.get(key) || "";
    let reserve = null;
    if (this.rules.reserve) {
      const shown = game.reserve_cards; // a revealed game: the reserve's cards face up
      const stack = !game.reserve
        ? h("div", { class: "card empty", role: "img", "aria-label": t("board.reserve_empty") })
        : shown
          ? h("div", { class: "stack fan", role: "list", "aria-label": t("board.reserve_cards") },
              shown.map((code, i) => this.faceEl(code, { role: "listitem", vars: { "--i": i } })))
          : h("div", { class: "stack", role: "img", "aria-label": plural("board.reserve_left", game.reserve) },
              Array.from({ length: Math.min(game.reserve, 4) }, (_, i) => h("div", { class: "card down", vars: { "--i": i } })));
      reserve = h("div", { class: `pile reserve ${mark("reserve")}`, "data-key": "reserve" }, h("span", { class: "pile-label", text: t("board.reserve") }), stack);
    }
    const cells = (game.cells || []).map((code, i) => {
      const key = `x${i + 1}`;
      return h(
        "div",
        { class: "pile cell" },
        h("span", { class: "pile-label", text: t("board.cell", { n: i + 1 }) }),
        code
          ? this.cardEl(code, key, { picked: picked === i + 1, extra: mark(key), last: true })
          : h("div", { class: "card empty", role: "img", "aria-label": t("board.cell_empty") }),
      );
    });
    const slots = this.rules.sequences_to_win;
    const first = game.columns.length - slots + 1;
    const done = h(
      "div",
      { class: "pile foundation", role: "list", "aria-label": t("board.completed") },
      Array.from({ length: slots }, (_, i) => {
        const suit = game.removed[i];
        const el = suit
          ? h("div", { class: `card up mini home suit-${suit}`, role: "listitem", "data-home": i, "aria-label": t("board.completed_suit", { suit: suitName(suit) }) },
              h("span", { class: "pip", "aria-hidden": "true", text: SUITS[suit] }))
          : h("div", { class: "card empty home", role: "listitem", "data-home": i, "aria-label": t("board.not_yet") });
        el.style.setProperty("grid-column-start", String(Math.max(1, first + i)));
        return el;
      }),
    );
    replace(this.top, reserve, cells.length ? h("div", { class: "cells" }, cells) : null, done);
  }

  /** Make column `col`'s element show `codes`: a card keeps its element while its place
   *  holds the same card; only classes and labels of the others change. */
  renderColumn(col, codes, targets) {
    const column = this.columns[col - 1];
    const target = targets.has(col);
    const picked = this.picked && !this.picked.cell && this.picked.col === col ? this.picked.index : -1;
    const colMark = this.marks.get(`col${col}`) || "";
    // A column whose cards, target, pick and marks are as drawn is left alone: a frame
    // touches (and the browser restyles) only the two or three columns a move changes.
    const marks = codes.map((_, index) => this.marks.get(`c${col}:${index}`) || "").join();
    // A puzzle shown whole once its attempt ends names its face-down cards: they are drawn
    // face up, marked as the cards that were face down.
    const down = this.game.down?.[col - 1] || 0;
    const signature = `${codes.join()}|${target}|${picked}|${colMark}|${marks}|${down}`;
    if (column.signature === signature) return;
    column.signature = signature;
    column.el.className = `col${target ? " target" : ""}${colMark ? " " + colMark : ""}${column.packed ? " packed" : ""}`;
    column.el.setAttribute("aria-label", plural("board.column", codes.length, { col }));
    if (!codes.length && !column.slot) {
      column.slot = h("button", { type: "button", class: "slot", "data-key": `s${col}`, "data-col": col, tabindex: "-1", disabled: !this.interactive || undefined });
      column.el.prepend(column.slot);
    } else if (codes.length && column.slot) {
      column.slot.remove();
      column.slot = null;
    }
    if (column.slot) column.slot.setAttribute("aria-label", t("board.empty_column", { n: col }) + (target ? `, ${t("board.target")}` : ""));
    const last = codes.length - 1;
    codes.forEach((code, index) => {
      const key = `c${col}:${index}`;
      let el = column.cards[index];
      if (!el || el.dataset.code !== (code || "")) {
        const fresh = code ? this.cardEl(code, key) : h("div", { class: "card down", role: "img", "data-code": "", "aria-label": t("card.down") });
        if (el) el.replaceWith(fresh);
        else column.el.append(fresh);
        column.cards[index] = el = fresh;
      }
      if (!code) return;
      el.dataset.key = key;
      const isPicked = picked >= 0 && index >= picked;
      const mark = this.marks.get(key);
      el.className = `card up suit-${parse(code).suit}${isPicked ? " picked" : ""}${mark ? " " + mark : ""}${index === last ? "" : " covered"}${index < down ? " was-down" : ""}`;
      el.setAttribute("aria-label", cardName(code) + (target && index === last ? `, ${t("board.target")}` : ""));
      if (this.interactive) el.setAttribute("aria-pressed", isPicked ? "true" : "false");
    });
    for (const extra of column.cards.splice(codes.length)) extra.remove();
  }

  /** A face-up card: a button on a board to play, a picture on one to look at. */
  cardEl(code, key, { picked = false, extra = "", last = false } = {}) {
    const props = {
      class: `card up suit-${parse(code).suit} ${picked ? "picked" : ""} ${extra} ${last ? "" : "covered"}`,
      "data-key": key,
      "data-code": code,
      "aria-label": cardName(code),
    };
    if (!this.interactive) return h("div", { ...props, role: "img" }, faces(code));
    return h("button", { ...props, type: "button", tabindex: "-1", "aria-pressed": picked ? "true" : "false" }, faces(code));
  }

  /** A face-up card outside the tableau (the revealed reserve): always a picture. */
  faceEl(code, { role = "img", vars } = {}) {
    return h("div", { class: `card up suit-${parse(code).suit}`, role, "data-code": code, "aria-label": cardName(code), vars }, faces(code));
  }

  /**
   * Size the cards to the window: the tallest column of a fresh deal fits without scrolling,
   * and cards grow with the room (fit.js). Long columns are packed tighter as they grow.
   * The geometry is measured once (and again after a resize), so drawing a live frame never
   * lays the page out in the middle of it.
   */
  layout() {
    const game = this.game;
    if (!game) return;
    if (!this.geometry) this.measure();
    if (!this.geometry) return;
    const steps = columnSteps(game.columns, this.geometry);
    const least = leastStep(this.geometry.width);
    steps.forEach((step, c) => {
      const column = this.columns[c];
      const value = `${step.toFixed(1)}px`;
      if (column && column.step !== value) {
        column.step = value;
        column.el.style.setProperty("--step", value);
        // Packed tighter than the corner index needs: the index shrinks to the strip shown.
        column.packed = step < least;
        column.el.classList.toggle("packed", column.packed);
        column.el.style.setProperty("--idx-max", `${Math.max(8, step - 3).toFixed(1)}px`);
      }
    });
  }

  /** The geometry for the room the page gives the board now (none while it has none). */
  measure() {
    for (const column of this.columns) column.step = null;
    const room = this.el.parentElement?.clientWidth || 0;
    if (room) {
      // Narrowing the board may wrap what sits above it (the score and the tools line up
      // with it) and so push it down: measure again once it is narrowed, and keep the
      // smaller fit.
      let fitted = null;
      for (let pass = 0; pass < 2; pass += 1) {
        const top = this.el.getBoundingClientRect().top + scrollY;
        const scale = CARD_SCALE[prefs().card_size];
        const next = cardWidth(this.rules, { width: room, height: innerHeight - top, viewport: innerWidth, scale });
        if (fitted && next.width >= fitted.width) break;
        fitted = { ...next, available: innerHeight - top };
        this.el.style.setProperty("--card-w", `${fitted.width}px`);
        this.el.style.setProperty("--gap", `${fitted.gap}px`);
        this.el.style.setProperty("--board-w", `${fitted.board}px`);
        this.el.parentElement.style.setProperty("--board-w", `${fitted.board}px`);
      }
      // Where the board's top is with these cards (they may have wrapped what is above).
      this.geometry = fitted && { ...fitted, top: this.el.getBoundingClientRect().top + scrollY };
    }
  }

  // --- picking and dropping --------------------------------------------------------------------

  targets() {
    const p = this.picked;
    if (!p) return new Set();
    return new Set(this.movesOf(p).map((m) => m.to));
  }

  movesOf(p) {
    return this.moves.filter((m) => (p.cell ? m.cell === p.cell : m.from === p.col && m.index === p.index));
  }

  pick(picked) {
    this.picked = picked;
    this.render();
    const count = picked.cell ? 1 : this.game.columns[picked.col - 1].length - picked.index;
    const code = picked.cell ? this.game.cells[picked.cell - 1] : this.game.columns[picked.col - 1][picked.index];
    return { code, count, targets: [...this.targets()] };
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
      if (this.picked.col === col && !this.picked.cell) this.unpick();
      else this.drop(col);
      return;
    }
    if (key.startsWith("c")) this.pickAndSay({ col, index: Number(key.split(":")[1]) });
  }

  pickAndSay(picked) {
    const { code, count, targets } = this.pick(picked);
    this.el.dispatchEvent(new CustomEvent("picked", { detail: { code, count, targets } }));
  }

  /** Play a card's best move (a double click, or one tap on touch): building on a card
   *  before moving into an empty column. Says so when the card has no legal move. */
  quickMove(key) {
    if (!this.game || !(key.startsWith("c") || key.startsWith("x"))) return false;
    const picked = key.startsWith("x") ? { cell: Number(key.slice(1)) } : { col: Number(key.slice(1).split(":")[0]), index: Number(key.split(":")[1]) };
    const options = this.movesOf(picked);
    if (!options.length) {
      this.pickAndSay(picked); // shows and says that it has nowhere to go
      return false;
    }
    const empty = (m) => (this.game.columns[m.to - 1].length === 0 ? 1 : 0);
    options.sort((a, b) => empty(a) - empty(b));
    this.picked = picked;
    this.drop(options[0].to);
    return true;
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
    const column = this.columns[col - 1];
    if (!column) return null;
    return column.slot || column.cards[column.cards.length - 1] || null;
  }

  focusKey(key) {
    let el = key ? this.el.querySelector(`button[data-key="${CSS.escape(key)}"]`) : null;
    if (!el && key?.startsWith("col")) el = this.topOf(Number(key.slice(3)));
    else if (!el && key?.startsWith("c")) el = this.topOf(Number(key.slice(1).split(":")[0]));
    if (!el || el.tagName !== "BUTTON") el = this.focusables()[0];
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
      if (direction === "down") this.focusKey(`col1`);
      return;
    }
    const col = Number(key.startsWith("s") ? key.slice(1) : key.slice(1).split(":")[0]);
    if (direction === "left" || direction === "right") {
      const next = ((col - 1 + (direction === "left" ? -1 : 1) + cols) % cols) + 1;
      const el = this.topOf(next);
      if (el) this.focusKey(el.dataset.key);
      return;
    }
    const buttons = [...this.columns[col - 1].el.querySelectorAll("button[data-key]")];
    const next = buttons[buttons.indexOf(from) + (direction === "up" ? -1 : 1)];
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
      const key = target.dataset.key;
      // One tap on touch plays the card's best move (a card picked from the keyboard, or a
      // tap on a column while one is picked, still drops where it is told).
      if (key && this.lastPointer === "touch" && !this.picked && this.quickMove(key)) return;
      if (key) {
        this.cursor = key;
        this.activate(key);
      } else if (this.picked && target.dataset.col) this.drop(Number(target.dataset.col));
    });
    this.el.addEventListener("dblclick", (event) => {
      const target = event.target.closest("button[data-key]");
      if (!target || this.lastPointer === "touch") return;
      this.picked = null;
      this.quickMove(target.dataset.key);
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
      } else if (event.key === "Enter" || event.key === " ") this.lastPointer = "keyboard";
    });
    this.el.addEventListener("pointerdown", (event) => {
      this.lastPointer = event.pointerType;
      this.dragStart(event);
    });
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
        const rect = card.getBoundingClientRect();
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
      for (const col of this.tableau.children) col.classList.remove("over");
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
    const picked = key.startsWith("x") ? { cell: Number(key.slice(1)) } : { col: Number(key.slice(1).split(":")[0]), index: Number(key.split(":")[1]) };
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

/** A card's face: its corner index, its centre (a pip, or the court's letter) and the
 *  far corner (app.css hides the last two on a covered card). */
function faces(code) {
  const { rank, suit } = parse(code);
  const face = short(code);
  const court = "JQK".includes(rank);
  return [
    h("span", { class: "idx", "aria-hidden": "true", text: face }),
    h("span", { class: `pip ${court ? "court" : ""}`, "aria-hidden": "true", text: court ? rank : SUITS[suit] }),
    h("span", { class: "idx idx-end", "aria-hidden": "true", text: face }),
  ];
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
      for (let i = Math.max(0, column.length - moved); i < column.length; i += 1) marks.set(`c${to}:${i}`, "last");
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
