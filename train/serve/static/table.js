// Drawing the card table: cards, seats around the table, the trick, scores. Shared by Play and Replay.
// Everything drawn comes from the server's JSON (a game's view or a replay frame); nothing is guessed.

export const SUIT_SYMBOLS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const SUIT_ORDER = ["S", "H", "C", "D"];
const RANK_ORDER = "AKQJT98765432";
const JOKERS = { BJ: "Big joker", LJ: "Little joker" };

/** Build an element: el("div", {class: "x", text: "hi"}, child, ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

export function suitOf(card) {
  return JOKERS[card] ? "S" : card.slice(-1);
}

/** "QS" -> "Q♠", "TD" -> "10♦", "BJ" -> "BJ". */
export function cardText(card) {
  if (JOKERS[card]) return card;
  const rank = card.slice(0, -1);
  return (rank === "T" ? "10" : rank) + SUIT_SYMBOLS[suitOf(card)];
}

/** "play QS" -> "play Q♠". */
export function withSymbols(label) {
  return label.replace(/\b([2-9TJQKA][SHDC])\b/g, (card) => cardText(card));
}

/** Words for screen readers: "queen of spades". */
export function cardWords(card) {
  if (JOKERS[card]) return JOKERS[card];
  const names = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  const rank = card.slice(0, -1);
  return `${names[rank] || rank} of ${SUIT_NAMES[suitOf(card)]}`;
}

function cardKey(card) {
  if (JOKERS[card]) return card === "BJ" ? -2 : -1;
  return SUIT_ORDER.indexOf(suitOf(card)) * 20 + RANK_ORDER.indexOf(card.slice(0, -1));
}

/** Cards sorted by suit (spades, hearts, clubs, diamonds: colours alternate) then rank, high first. */
export function sortCards(cards) {
  return [...cards].sort((a, b) => cardKey(a) - cardKey(b));
}

/** One card face; a <button> when `onClick` is given. */
export function cardFace(card, { onClick = null, legal = true, selected = false, small = false, label = null } = {}) {
  const red = suitOf(card) === "H" || suitOf(card) === "D";
  const classes = ["card", red ? "red" : "black", small ? "small" : "", selected ? "selected" : ""];
  if (!onClick) {
    return el("span", { class: classes.join(" "), title: cardWords(card), "data-card": card }, cardText(card));
  }
  classes.push(legal ? "legal" : "dimmed");
  return el(
    "button",
    {
      type: "button",
      class: classes.join(" "),
      "data-card": card,
      disabled: !legal,
      "aria-pressed": selected ? "true" : null,
      "aria-label": label || cardWords(card),
      onclick: legal ? onClick : null,
    },
    cardText(card),
  );
}

/** A hand as compact suit lines ("♠ A K 7"), for the face-up hands of a replay. */
export function handLines(cards) {
  const bySuit = {};
  for (const card of sortCards(cards)) {
    const suit = suitOf(card);
    if (!bySuit[suit]) bySuit[suit] = [];
    bySuit[suit].push(card);
  }
  return el(
    "div",
    { class: "hand-lines" },
    SUIT_ORDER.filter((s) => bySuit[s]).map((s) =>
      el(
        "div",
        { class: `suit-line ${s === "H" || s === "D" ? "red" : "black"}` },
        el("span", { class: "suit", "aria-label": SUIT_NAMES[s] }, SUIT_SYMBOLS[s]),
        bySuit[s].map((c) =>
          el("span", { class: "rank", title: cardWords(c), "data-card": c }, JOKERS[c] ? c : cardText(c).slice(0, -1)),
        ),
      ),
    ),
  );
}

export function seatName(seats, seat) {
  const info = seats && seats[seat];
  if (!info) return `Seat ${seat}`;
  if (info.label) return info.label;
  return info.name === "You" ? "You" : `${info.name} (${seat})`;
}

/** The sides and who sits on each: [{side, seats: [..], label}]. */
export function sidesOf(seats, nSides) {
  const sides = [];
  for (let side = 0; side < nSides; side++) {
    const members = (seats || []).filter((s) => (s.side ?? s.seat) === side);
    const label = members.length ? members.map((s) => seatName(seats, s.seat)).join(" & ") : `Side ${side}`;
    sides.push({ side, seats: members.map((s) => s.seat), label });
  }
  return sides;
}

function bidText(state, seat) {
  const bid = state.bids ? state.bids[seat] : null;
  if (bid === null || bid === undefined) return "\u2013";
  if (bid === 0) return state.blind && state.blind[seat] ? "blind nil" : "nil";
  return String(bid);
}

/** Where seat `seat` sits: `me` at the bottom, the others clockwise (the next player on the left). */
function seatAngle(seat, me, n) {
  const relative = (seat - me + n) % n;
  return Math.PI / 2 + (relative * 2 * Math.PI) / n;
}

function place(node, angle, radius) {
  node.style.left = `${50 + radius * Math.cos(angle)}%`;
  node.style.top = `${50 + radius * Math.sin(angle)}%`;
  return node;
}

/** The number of seats of a view or a frame. */
export function nPlayersOf(state) {
  if (state.rules && state.rules.n_players) return state.rules.n_players;
  return (state.seats || state.bids || state.hands || []).length;
}

/**
 * Draw the table into `container`.
 * state: a view or a frame (seats, dealer, to_play, trick, last_trick, bids, blind, tricks_won).
 * opts.me: the seat at the bottom; opts.hands: {seat: [cards]} shown face up; opts.counts: {seat: n};
 * opts.showLastTrick: draw the last trick in the middle instead of the current one; opts.notes: {seat: text};
 * opts.hearts: no bids to show.
 */
export function drawTable(container, state, opts = {}) {
  const n = nPlayersOf(state);
  const me = opts.me ?? 0;
  const felt = el("div", { class: "felt", role: "group", "aria-label": "card table" });
  for (let seat = 0; seat < n; seat++) {
    const angle = seatAngle(seat, me, n);
    const turn = state.to_play === seat;
    const hand = opts.hands ? opts.hands[seat] : null;
    const count = opts.counts ? opts.counts[seat] : null;
    const box = el(
      "section",
      {
        class: `seat${turn ? " turn" : ""}${seat === me ? " me" : ""}`,
        "data-seat": seat,
        "aria-label": `seat ${seat}: ${seatName(state.seats, seat)}${turn ? ", to play" : ""}`,
      },
      el(
        "div",
        { class: "seat-name" },
        seatName(state.seats, seat),
        state.dealer === seat ? el("span", { class: "chip", title: "dealer" }, "D") : null,
        turn ? el("span", { class: "chip turn-chip", title: "to play" }, "\u25B6") : null,
      ),
      el(
        "div",
        { class: "seat-stats" },
        opts.hearts ? null : el("span", {}, "bid ", el("b", { class: "bid" }, bidText(state, seat))),
        el("span", {}, "won ", el("b", { class: "won" }, state.tricks_won ? state.tricks_won[seat] : 0)),
        count !== null && count !== undefined ? el("span", { class: "count" }, `${count} cards`) : null,
      ),
      opts.faceUp && opts.faceUp[seat] && opts.faceUp[seat].length
        ? el(
            "div",
            { class: "face-up" },
            "face up: ",
            opts.faceUp[seat].map((c) => cardFace(c, { small: true })),
          )
        : null,
      hand ? handLines(hand) : null,
      opts.notes && opts.notes[seat] ? el("div", { class: "seat-note" }, opts.notes[seat]) : null,
    );
    felt.append(place(box, angle, opts.hands ? 38 : 40));
  }
  const showLast = opts.showLastTrick && state.last_trick;
  const trick = showLast ? state.last_trick.cards : state.trick || [];
  const middle = el("div", { class: "trick", "aria-label": showLast ? "last trick" : "current trick" });
  for (const { seat, card } of trick) {
    const angle = seatAngle(seat, me, n);
    const win = showLast && state.last_trick.winner === seat;
    const face = cardFace(card, { label: `${seatName(state.seats, seat)}: ${cardWords(card)}` });
    face.classList.toggle("winner", win);
    middle.append(place(el("div", { class: "trick-card", "data-seat": seat }, face), angle, opts.hands ? 15 : 22));
  }
  if (showLast) {
    middle.append(
      el("div", { class: "trick-note" }, `last trick, won by ${seatName(state.seats, state.last_trick.winner)}`),
    );
  }
  felt.append(middle);
  container.replaceChildren(felt);
}

/** Scores and bags per side, as a small table. */
export function drawScores(container, state, { hearts = false } = {}) {
  const scores = state.scores || [];
  const sides = sidesOf(state.seats, scores.length);
  const rows = sides.map(({ side, label }) =>
    el(
      "tr",
      { "data-side": side, class: state.winner === side ? "winner" : "" },
      el("th", { scope: "row" }, label),
      el("td", { class: "score" }, scores[side]),
      hearts ? null : el("td", { class: "bags" }, state.bags ? state.bags[side] : ""),
    ),
  );
  const heads = [
    el("th", { scope: "col" }, scores.length === nPlayersOf(state) ? "player" : "side"),
    el("th", { scope: "col" }, "score"),
  ];
  if (!hearts) heads.push(el("th", { scope: "col" }, "bags"));
  container.replaceChildren(
    el(
      "table",
      { class: "scores" },
      el("caption", {}, hearts ? "Scores (the lowest wins)" : "Scores"),
      el("thead", {}, el("tr", {}, heads)),
      el("tbody", {}, rows),
    ),
  );
}

/** "points_per_hand" -> "points per hand". */
export function words(key) {
  return key.split("_").join(" ");
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (Array.isArray(value)) return value.map(cellText).join(", ");
  if (typeof value === "object") {
    return Object.entries(value)
      .map(([k, v]) => `${k}: ${cellText(v)}`)
      .join("; ");
  }
  return String(value);
}

/** Breakdown fields that mean nothing in Hearts (no bids, nils or bags there). */
const NOT_IN_HEARTS = new Set(["bids", "nil", "bags", "bags_added", "bag_penalties"]);

/** The short heading of a seat's column: "You", "heuristic (1)". */
function columnHeads(seats, width, nPlayers) {
  if (width === nPlayers) return Array.from({ length: width }, (_, s) => seatName(seats, s));
  return sidesOf(seats, width).map((s) => s.label);
}

/**
 * A hand's score breakdown: a table of the per-seat fields (bids, tricks, nils...) and, where sides are
 * partnerships, one of the per-side fields (points, scores, bags...). Fields with no value at all are left out.
 */
export function drawBreakdown(container, result, seats, nPlayers, { hearts = false } = {}) {
  const rows = Object.entries(result).filter(
    ([key, v]) => Array.isArray(v) && v.some((x) => x !== null) && !(hearts && NOT_IN_HEARTS.has(key)),
  );
  const widths = [...new Set(rows.map(([, v]) => v.length))].sort((a, b) => b - a);
  const tables = widths.map((width) => {
    const heads = columnHeads(seats, width, nPlayers);
    return el(
      "table",
      { class: "breakdown", "data-columns": width === nPlayers ? "seats" : "sides" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col" }, ""),
          heads.map((h) => el("th", { scope: "col" }, h)),
        ),
      ),
      el(
        "tbody",
        {},
        rows
          .filter(([, v]) => v.length === width)
          .map(([key, values]) =>
            el(
              "tr",
              { "data-field": key },
              el("th", { scope: "row" }, words(key)),
              values.map((v) => el("td", {}, cellText(v))),
            ),
          ),
      ),
    );
  });
  container.replaceChildren(...tables);
}

/** Any list of row objects (a tournament's results) as a table. */
export function drawRowsTable(container, rows, caption) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  container.replaceChildren(
    el(
      "table",
      { class: "results" },
      el("caption", {}, caption),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          columns.map((c) => el("th", { scope: "col" }, words(c))),
        ),
      ),
      el(
        "tbody",
        {},
        rows.map((r) =>
          el(
            "tr",
            {},
            columns.map((c) => el("td", {}, cellText(r[c]))),
          ),
        ),
      ),
    ),
  );
  return columns;
}

/** An object's fields as a two-column table (a tournament game's results). */
export function drawKeyValues(container, data, caption) {
  const rows = Object.entries(data || {}).map(([k, v]) =>
    el("tr", {}, el("th", { scope: "row" }, words(k)), el("td", {}, cellText(v))),
  );
  container.replaceChildren(el("table", { class: "key-values" }, el("caption", {}, caption), el("tbody", {}, rows)));
}

/** Horizontal SVG bars of `key` over the rows (a plot of a tournament's results). */
export function barChart(rows, labelKey, key) {
  const ns = "http://www.w3.org/2000/svg";
  const values = rows.map((r) => Number(r[key]) || 0);
  const max = Math.max(1e-9, ...values.map(Math.abs));
  const rowH = 24;
  const width = 560;
  const labelW = 170;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${rows.length * rowH + 10}`);
  svg.setAttribute("class", "bars");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${key} by ${labelKey}`);
  const zero = values.some((v) => v < 0) ? labelW + (width - labelW - 60) / 2 : labelW;
  const span = values.some((v) => v < 0) ? (width - labelW - 60) / 2 : width - labelW - 60;
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
  };
  rows.forEach((r, i) => {
    const y = 4 + i * rowH;
    const w = (Math.abs(values[i]) / max) * span;
    add("text", { x: 0, y: y + 15, class: "bars-label" }, cellText(r[labelKey]).slice(0, 24));
    add("rect", { x: values[i] < 0 ? zero - w : zero, y: y + 3, width: Math.max(w, 1), height: rowH - 8 });
    add("text", { x: (values[i] < 0 ? zero : zero + w) + 4, y: y + 15, class: "bars-value" }, cellText(values[i]));
  });
  return svg;
}
