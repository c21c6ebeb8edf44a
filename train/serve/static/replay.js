// Watch and replay: a game record or a tournament log, read in the browser (or named by a server path),
// POSTed to /api/replay; then stepped decision by decision or trick by trick, all hands face up.

import { api, showError } from "./api.js";
import {
  barChart,
  cardText,
  drawBreakdown,
  drawRowsTable,
  drawScores,
  drawKeyValues,
  drawTable,
  el,
  nPlayersOf,
  seatName,
  withSymbols,
  words,
} from "./table.js";

const replay = { data: null, game: 0, frame: 0 };
const $ = (id) => document.getElementById(id);

export function initReplay() {
  $("replay-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    let body;
    try {
      body = bodyFromText(await file.text(), file.name);
    } catch (err) {
      showError(`${file.name}: ${err.message}`);
      return;
    }
    await open(body, file.name);
  });
  $("replay-path-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const path = $("replay-path").value.trim();
    if (!path) showError("path: give a JSON record or JSONL tournament log in the server's replay folder, relative to it");
    else open({ path }, path);
  });
  $("replay-game").addEventListener("change", () => {
    replay.game = Number($("replay-game").value);
    replay.frame = 0;
    render();
  });
  $("first").addEventListener("click", () => go(0));
  $("prev-trick").addEventListener("click", () => go(trickStart(-1)));
  $("prev").addEventListener("click", () => go(replay.frame - 1));
  $("next").addEventListener("click", () => go(replay.frame + 1));
  $("next-trick").addEventListener("click", () => go(trickStart(+1)));
  $("last").addEventListener("click", () => go(frames().length - 1));
  document.addEventListener("keydown", onKey);
}

// Record keys are 64-bit integers, beyond what a JavaScript number holds exactly: long integer literals are
// carried through as marked strings and written back as the very digits the file had.
const BIG = /([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g;
const MARKED = /"\\u0000big:(-?\d+)"/g;

function parseExact(text) {
  return JSON.parse(text.replace(BIG, (_, before, digits) => `${before}"\\u0000big:${digits}"`));
}

/** JSON text of `value`, with the long integers of `parseExact` as they were. */
export function stringifyExact(value) {
  return JSON.stringify(value).replace(MARKED, (_, digits) => digits);
}

/** The request body for a file's text: a JSONL tournament log, a list of hands, or one hand record. */
export function bodyFromText(text, name = "") {
  const trimmed = text.trim();
  if (!trimmed) throw new Error("the file is empty");
  const lines = trimmed.split(/\r?\n/).filter((l) => l.trim());
  let parsed;
  try {
    parsed = parseExact(trimmed);
  } catch (err) {
    if (name.endsWith(".jsonl") || lines.length > 1) return { jsonl: text };
    throw new Error(`not JSON (${err.message})`);
  }
  if (Array.isArray(parsed)) return { hands: parsed };
  if (parsed && Array.isArray(parsed.hands) && !parsed.actions) return { hands: parsed.hands };
  return { record: parsed };
}

async function open(body, name) {
  try {
    replay.data = await api("/api/replay", { method: "POST", raw: stringifyExact(body) });
  } catch (err) {
    showError(`cannot replay ${name}: ${err.message}`);
    return;
  }
  showError(null);
  replay.game = 0;
  replay.frame = 0;
  const note = replay.data.note ? ` (${replay.data.note})` : "";
  $("replay-source").textContent = `${name}: ${replay.data.kind}, ${replay.data.games.length} game(s)${note}`;
  $("replay-game").replaceChildren(
    ...replay.data.games.map((g, i) => el("option", { value: i }, `${i + 1}. ${g.title || `game ${i + 1}`}`)),
  );
  $("replay-game-row").hidden = replay.data.games.length < 2;
  drawReport(replay.data.report);
  $("replay-view").hidden = replay.data.games.length === 0;
  if (replay.data.games.length) {
    render();
    if (frames().length) $("next").focus(); // so that the arrow keys step at once
  }
}

function frames() {
  const game = replay.data && replay.data.games[replay.game];
  return game ? game.frames : [];
}

function tricksDone(frame) {
  return (frame.tricks_won || []).reduce((a, b) => a + b, 0);
}

/** A frame that ends a trick (or starts the play): where trick-by-trick steps land. */
function isTrickMark(i) {
  const list = frames();
  if (i <= 0 || i >= list.length - 1) return true;
  return tricksDone(list[i]) !== tricksDone(list[i - 1]) || (list[i].phase === "play" && list[i - 1].phase !== "play");
}

function trickStart(direction) {
  const list = frames();
  let i = replay.frame + direction;
  while (i > 0 && i < list.length - 1 && !isTrickMark(i)) i += direction;
  return i;
}

function go(index) {
  const list = frames();
  if (!list.length) return;
  replay.frame = Math.max(0, Math.min(list.length - 1, index));
  render();
}

function onKey(event) {
  if ($("replay").hidden || $("replay-view").hidden) return;
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const moves = {
    ArrowRight: () => go(replay.frame + 1),
    ArrowLeft: () => go(replay.frame - 1),
    ArrowDown: () => go(trickStart(+1)),
    ArrowUp: () => go(trickStart(-1)),
    Home: () => go(0),
    End: () => go(frames().length - 1),
  };
  if (moves[event.key]) {
    event.preventDefault();
    moves[event.key]();
  }
}

function handsOf(frame) {
  const hands = frame.hands || {};
  const out = {};
  const n = nPlayersOf(frame);
  for (let s = 0; s < n; s++) out[s] = hands[s] || hands[String(s)] || [];
  return out;
}

/** Hearts: the cards each seat passed; two-player: each player's discards, and the card on show. */
function seatNotes(frame) {
  const notes = {};
  const n = nPlayersOf(frame);
  for (let seat = 0; seat < n; seat++) {
    const parts = [];
    const passed = frame.passed && frame.passed[seat];
    if (passed && passed.length) parts.push(`passed ${passed.map(cardText).join(" ")}`);
    const discards = frame.discards && frame.discards[seat];
    if (discards && discards.length) parts.push(`discards ${discards.map(cardText).join(" ")}`);
    if (frame.shown && frame.to_play === seat) parts.push(`shown ${cardText(frame.shown)}`);
    if (parts.length) notes[seat] = parts.join("; ");
  }
  return notes;
}

function eventOf(frame) {
  const e = frame.event || frame.last_event || frame.decision || null;
  if (!e) return null;
  return `${seatName(frame.seats, e.seat)}: ${withSymbols(e.label || e.name || String(e.action))}`;
}

/** Seats of a replayed hand: "Seat k", partners on one side (seats 0 + 2, 1 + 3). */
function recordSeats(rules, n) {
  const partnership = Boolean(rules && rules.partnership);
  return Array.from({ length: n }, (_, seat) => ({
    seat,
    name: `Seat ${seat}`,
    label: `Seat ${seat}`,
    side: partnership ? seat % 2 : seat,
  }));
}

function render() {
  const game = replay.data.games[replay.game];
  const list = game.frames;
  $("replay-steps").hidden = list.length === 0;
  $("replay-game-result").hidden = list.length !== 0;
  if (list.length === 0) {
    drawKeyValues($("replay-game-result"), game.result, game.title);
    return;
  }
  const frame = list[replay.frame];
  const seats = frame.seats || game.seats || recordSeats(game.rules, nPlayersOf(frame));
  const state = { ...frame, seats };
  const box = $("replay-view");
  box.dataset.frame = String(replay.frame);
  box.dataset.frames = String(list.length);
  $("frame-counter").textContent = `decision ${replay.frame} of ${list.length - 1}, ${tricksDone(frame)} tricks done`;
  $("frame-event").textContent = eventOf(state) || (replay.frame === 0 ? "the deal" : "");
  const showLast = (!frame.trick || frame.trick.length === 0) && Boolean(frame.last_trick);
  drawTable($("replay-table"), state, {
    me: 0,
    hands: handsOf(state),
    faceUp: frame.face_up,
    showLastTrick: showLast,
    notes: seatNotes(frame),
    hearts: Boolean(game.rules && game.rules.game === "hearts"),
  });
  drawScores($("replay-scores"), state, { hearts: Boolean(game.rules && game.rules.game === "hearts") });
  $("first").disabled = $("prev").disabled = $("prev-trick").disabled = replay.frame === 0;
  $("last").disabled = $("next").disabled = $("next-trick").disabled = replay.frame === list.length - 1;
  const atEnd = replay.frame === list.length - 1;
  $("replay-result").hidden = !(atEnd && game.result);
  if (atEnd && game.result) {
    drawBreakdown($("replay-breakdown"), game.result, seats, nPlayersOf(state), {
      hearts: Boolean(game.rules && game.rules.game === "hearts"),
    });
  }
}

/** The tournament's results: a row per bot and per pair, and bars of the bots' main numbers (its plots). */
function drawReport(report) {
  const panel = $("report");
  const bots = report && Array.isArray(report.bots) ? report.bots : [];
  panel.hidden = !bots.length;
  if (!bots.length) return;
  drawRowsTable($("report-table"), bots, `Tournament results: ${report.games} games`);
  const pairs = Array.isArray(report.pairs) ? report.pairs.map(flatRow) : [];
  if (pairs.length) drawRowsTable($("report-pairs"), pairs, "Pairs");
  else $("report-pairs").replaceChildren();
  const better = report.lower_is_better ? " (lower is better)" : "";
  const plotted = ["points_per_hand", "win_rate", "rating"].filter((key) =>
    bots.every((r) => typeof r[key] === "number"),
  );
  $("report-plots").replaceChildren(
    ...plotted.map((key) =>
      el(
        "figure",
        {},
        barChart(bots, "bot", key),
        el("figcaption", {}, `${words(key)}${key === "points_per_hand" ? better : ""}`),
      ),
    ),
  );
}

/** A pair's entry with its lists and objects as text (a table row). */
function flatRow(row) {
  const out = {};
  for (const [k, v] of Object.entries(row)) out[k] = Array.isArray(v) && v.length > 6 ? `${v.length} values` : v;
  return out;
}
