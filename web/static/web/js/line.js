// A winning line played on a revealed position, for the replay's board. The analysis of a
// finished game gives the commands of a line from its last winnable position; the API has
// no state for positions off the game's own path, so they are worked out here as the engine
// makes them (games/engine/game.py: a move lifts a group, a deal puts the reserve's cards on
// its columns, and a complete run K..A of one suit leaves the columns the ruleset checks).
// Only for showing: every card of a finished game is face up, nothing is sent anywhere.

const RUN = "KQJT98765432A";

/** Whether `cards` ends with a complete run, K down to A of one suit. */
function endsWithRun(cards) {
  if (cards.length < 13) return false;
  const tail = cards.slice(-13);
  const suit = tail[12]?.[1];
  return tail.every((code, i) => code && code[0] === RUN[i] && code[1] === suit);
}

/** `game` after `command` ({type: "move", from, index, to} or {cell, to}, or {type: "deal"}),
 *  with the event that records it: {game, event}. */
export function applyCommand(game, command, rules, seq) {
  const columns = game.columns.map((cards) => [...cards]);
  const cells = game.cells ? [...game.cells] : game.cells;
  let reserveCards = game.reserve_cards ? [...game.reserve_cards] : [];
  let touched;
  let event;
  if (command.type === "deal") {
    reserveCards.forEach((card, i) => columns[rules.reserve_to[i] - 1]?.push(card));
    reserveCards = [];
    touched = rules.reserve_to.map((c) => c - 1);
    event = { seq, type: "dealt", data: {} };
  } else if (command.cell) {
    const card = cells[command.cell - 1];
    cells[command.cell - 1] = null;
    columns[command.to - 1].push(card);
    touched = [command.to - 1];
    event = { seq, type: "moved", data: { cell: command.cell, to: command.to }, card };
  } else {
    const group = columns[command.from - 1].splice(command.index);
    columns[command.to - 1].push(...group);
    touched = [command.to - 1];
    event = { seq, type: "moved", data: { from: command.from, index: command.index, to: command.to }, card: group[0] };
  }
  const removed = [];
  if (rules.sequences !== "stay") {
    const checked = rules.sequences === "destination" ? touched : columns.map((_, c) => c);
    for (const c of checked) {
      while (endsWithRun(columns[c])) {
        removed.push({ column: c + 1, suit: columns[c].at(-1)[1] });
        columns[c].splice(-13);
      }
    }
  }
  const suits = [...game.removed, ...removed.map((r) => r.suit)];
  const won = rules.sequences === "stay"
    ? columns.every((cards) => !cards.length || endsWithRun(cards) && cards.length === 13)
    : suits.length >= rules.sequences_to_win;
  event.effects = { removed, flipped: [] };
  const next = {
    ...game,
    columns,
    cells,
    reserve_cards: reserveCards,
    reserve: reserveCards.length,
    removed: suits,
    moves: game.moves + 1,
    version: seq,
    status: won ? "won" : "playing",
  };
  return { game: next, event };
}

/** Every step of `line` from `start` (the position at the analysis' last_winnable):
 *  [{game, event}], the first being `start` itself (no event). */
export function playLine(start, line, rules) {
  const steps = [{ game: start, event: null }];
  line.forEach((command, i) => steps.push(applyCommand(steps[i].game, command, rules, i + 1)));
  return steps;
}
