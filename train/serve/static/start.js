// The start form: the rules preset, your seat, the bot in every other seat, an optional target and seed.

import { el } from "./table.js";

const start = { options: null, onSubmit: null };
const $ = (id) => document.getElementById(id);

/** Fill the form from `/api/options`; `onSubmit(body)` gets the body of `POST /api/games`. */
export function initStart(options, onSubmit) {
  start.options = options;
  start.onSubmit = onSubmit;
  $("start-form").addEventListener("submit", (event) => {
    event.preventDefault();
    startGame();
  });
  $("rules").addEventListener("change", drawSeatChoices);
  $("all-bots").addEventListener("change", () => {
    for (const select of $("seat-bots").querySelectorAll("select")) select.value = $("all-bots").value;
  });
  fillForm(options);
}

function fillForm(options) {
  $("rules").replaceChildren(
    ...options.presets.map((p) =>
      el("option", { value: p.name, title: p.description || "" }, `${p.name} (${p.n_players} players)`),
    ),
  );
  const bots = options.bots.map((b) => el("option", { value: b }, b));
  $("all-bots").replaceChildren(...bots);
  $("all-bots").value = options.default_bot;
  drawSeatChoices();
}

function preset() {
  return start.options.presets.find((p) => p.name === $("rules").value) || start.options.presets[0];
}

/** The seat select (0..n-1) and one bot select per other seat, after the preset changes. */
function drawSeatChoices() {
  const p = preset();
  $("preset-description").textContent = p.description || "";
  const old = Number($("seat").value || 0);
  $("seat").replaceChildren(...Array.from({ length: p.n_players }, (_, s) => el("option", { value: s }, `seat ${s}`)));
  $("seat").value = String(old < p.n_players ? old : 0);
  const boxes = [];
  for (let s = 0; s < p.n_players; s++) {
    const select = el(
      "select",
      { id: `bot-${s}`, "data-seat": s },
      start.options.bots.map((b) => el("option", { value: b }, b)),
    );
    select.value = $("all-bots").value;
    boxes.push(el("label", { class: "seat-bot", for: `bot-${s}`, "data-seat": s }, `seat ${s} `, select));
  }
  $("seat-bots").replaceChildren(...boxes);
  $("seat").onchange = markHumanSeat;
  markHumanSeat();
}

function markHumanSeat() {
  const me = Number($("seat").value);
  for (const label of $("seat-bots").querySelectorAll("label")) label.hidden = Number(label.dataset.seat) === me;
}

async function startGame() {
  const p = preset();
  const seat = Number($("seat").value);
  const bots = [];
  for (let s = 0; s < p.n_players; s++) if (s !== seat) bots.push($(`bot-${s}`).value);
  const body = { rules: p.name, bots, seat, seed: numberOrNull($("seed").value) };
  const target = numberOrNull($("target").value);
  if (target !== null) body.target_score = target;
  await start.onSubmit(body);
}

/** A number field's value, or null when it is empty (the server checks the range and says what is allowed). */
function numberOrNull(text) {
  const trimmed = text.trim();
  return trimmed === "" ? null : Number(trimmed);
}
