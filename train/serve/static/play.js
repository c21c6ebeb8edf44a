// Play: your seat at the table against the bots. The server holds the game; this page
// only draws the view it is given and posts the action ids of the `legal` list.

import { api, showError } from "./api.js";
import { initStart } from "./start.js";
import {
  cardFace,
  cardText,
  withSymbols,
  drawBreakdown,
  drawScores,
  drawTable,
  el,
  seatName,
  sidesOf,
  sortCards,
} from "./table.js";

const PASS_KINDS = new Set(["pass"]);
const play = { options: null, view: null, selected: new Set(), showLast: false, renders: 0, busy: false };
const $ = (id) => document.getElementById(id);

export async function initPlay() {
  $("next-hand").addEventListener("click", () => send(`/api/games/${play.view.id}/next`, {}));
  $("new-game").addEventListener("click", leaveGame);
  $("leave").addEventListener("click", leaveGame);
  $("toggle-last").addEventListener("click", () => {
    play.showLast = !play.showLast;
    render();
  });
  $("hint").addEventListener("click", showHint);
  $("confirm-pass").addEventListener("click", confirmPass);
  try {
    play.options = await api("/api/options");
  } catch (err) {
    showError(`cannot load the options: ${err.message}`);
    return;
  }
  initStart(play.options, (body) => send("/api/games", body));
  $("hint-bot").replaceChildren(...play.options.bots.map((b) => el("option", { value: b }, b)));
  $("hint-bot").value = play.options.default_bot;
  const id = new URLSearchParams(window.location.search).get("game");
  if (id) {
    try {
      show(await api(`/api/games/${encodeURIComponent(id)}`));
    } catch (err) {
      showError(`cannot resume game ${id}: ${err.message}`);
      setUrlGame(null);
    }
  }
}

function leaveGame() {
  play.view = null;
  setUrlGame(null);
  $("table-view").hidden = true;
  $("start").hidden = false;
}

function setUrlGame(id) {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set("game", id);
  else url.searchParams.delete("game");
  url.searchParams.delete("tab");
  window.history.replaceState(null, "", url);
}

/** POST `body` to `path`, then draw the view it answers; a refused request changes nothing on the server: its
 * message is shown and the game is drawn afresh as the server has it (another tab may have moved). */
async function send(path, body) {
  if (play.busy) return;
  setBusy(true);
  try {
    const view = await api(path, { method: "POST", body });
    showError(null);
    show(view);
  } catch (err) {
    showError(err.message);
    await refresh();
  } finally {
    setBusy(false);
  }
}

async function refresh() {
  if (!play.view) return;
  try {
    show(await api(`/api/games/${encodeURIComponent(play.view.id)}`));
  } catch {
    // the error shown already says what went wrong
  }
}

function setBusy(busy) {
  play.busy = busy;
  $("table-view").dataset.busy = busy ? "1" : "0";
  $("start-form").querySelector("button[type=submit]").disabled = busy;
}

function show(view) {
  const newHand = !play.view || play.view.hand_number !== view.hand_number || play.view.phase !== view.phase;
  if (newHand) play.selected.clear();
  play.view = view;
  play.hint = null;
  if (view.phase !== "play") play.showLast = false;
  setUrlGame(view.id);
  $("start").hidden = true;
  $("table-view").hidden = false;
  render();
}

/** How many cards each seat holds: the server's count when it gives one, else from the trick. */
function cardCounts(view) {
  const given = view.hand_sizes || view.hand_counts || view.card_counts;
  if (given) return given;
  if (view.phase !== "play") return null;
  const n = view.rules.n_players;
  const inTrick = new Set((view.trick || []).map((t) => t.seat));
  const base = view.hand.length + (inTrick.has(view.seat) ? 1 : 0);
  return Array.from({ length: n }, (_, s) => (s === view.seat ? view.hand.length : base - (inTrick.has(s) ? 1 : 0)));
}

function render() {
  const view = play.view;
  const box = $("table-view");
  box.dataset.phase = view.phase;
  box.dataset.awaiting = view.awaiting;
  box.dataset.render = String(++play.renders);
  $("status").textContent = statusText(view);
  drawTable($("play-table"), view, {
    me: view.seat,
    counts: cardCounts(view),
    faceUp: view.face_up,
    showLastTrick: play.showLast || view.phase === "hand_over" || view.phase === "match_over",
    hearts: view.rules.game === "hearts",
  });
  drawScores($("play-scores"), view, { hearts: view.rules.game === "hearts" });
  $("toggle-last").disabled = !view.last_trick;
  $("toggle-last").textContent = play.showLast ? "Show the current trick" : "Show the last trick";
  $("toggle-last").setAttribute("aria-pressed", play.showLast ? "true" : "false");
  $("download").href = `/api/games/${encodeURIComponent(view.id)}/record`;
  $("download").setAttribute("download", `spades-game-${view.id}.json`);
  $("hint").disabled = view.awaiting !== "you";
  $("hint-text").replaceChildren();
  drawControls(view);
  drawHand(view);
  drawEvents(view);
  drawResult(view);
}

function statusText(view) {
  const hand = `Hand ${view.hand_number}`;
  if (view.phase === "match_over") return `${hand}: the match is over.`;
  if (view.awaiting === "next_hand") return `${hand} is over: see the score breakdown.`;
  if (view.awaiting === "you") {
    const what = {
      blind: "blind nil, or look at your cards",
      draw: "keep or discard the card you are shown",
      exchange: "choose the cards to exchange",
      pass: `choose ${passCount(view)} cards to pass`,
      bid: "bid",
      bemo: "choose Bemo or not",
      play: "play a card",
    }[view.phase];
    return `${hand}: your turn to ${what || view.phase}.`;
  }
  return `${hand}: ${view.to_play === null ? "waiting" : `${seatName(view.seats, view.to_play)} to play`}.`;
}

function passCount(view) {
  return view.pass_count ?? 3;
}

function isPassing(view) {
  return view.phase === "pass" && view.legal.some((a) => PASS_KINDS.has(a.kind));
}

/** Buttons for every legal action that is not a card in your hand: blind nil / look, bids, keep / discard... */
function drawControls(view) {
  const mine = view.awaiting === "you" ? view.legal : [];
  const handCards = new Set(view.hand);
  const others = mine.filter((a) => !(a.card && handCards.has(a.card)));
  const bids = others.filter((a) => a.kind === "bid").sort((a, b) => a.bid - b.bid);
  const rest = others.filter((a) => a.kind !== "bid");
  const groups = [];
  if (view.draw_card) {
    groups.push(el("div", { class: "drawn" }, "You are shown ", cardFace(view.draw_card)));
  }
  if (rest.length) {
    groups.push(
      el(
        "div",
        { class: "button-row", role: "group", "aria-label": "choices" },
        rest.map((a) =>
          el(
            "button",
            {
              type: "button",
              class: `action ${a.kind}`,
              "data-kind": a.kind,
              "data-action": a.id,
              onclick: () => act(a.id),
            },
            a.label,
          ),
        ),
      ),
    );
  }
  if (bids.length) {
    groups.push(
      el(
        "div",
        { class: "button-row bids", role: "group", "aria-label": "your bid" },
        el("span", { class: "row-label" }, "Bid:"),
        bids.map((a) =>
          el(
            "button",
            {
              type: "button",
              class: "action bid",
              "data-kind": "bid",
              "data-bid": a.bid,
              "data-action": a.id,
              title: a.label,
              onclick: () => act(a.id),
            },
            a.bid === 0 ? "nil" : String(a.bid),
          ),
        ),
      ),
    );
  }
  $("controls").replaceChildren(...groups);
  const passing = isPassing(view) && view.awaiting === "you";
  $("pass-row").hidden = !passing;
  if (passing) {
    const need = passCount(view) - (view.passed || []).length;
    $("confirm-pass").disabled = play.selected.size !== need;
    $("confirm-pass").textContent = `Pass ${need} selected card${need === 1 ? "" : "s"}`;
    $("pass-note").textContent =
      `${play.selected.size} of ${need} chosen: ${[...play.selected].map(cardText).join(" ")}`;
  }
}

function drawHand(view) {
  const mine = view.awaiting === "you" ? view.legal : [];
  const byCard = new Map(mine.filter((a) => a.card).map((a) => [a.card, a]));
  const passing = isPassing(view);
  const cards = sortCards(view.hand).map((card) => {
    const action = byCard.get(card);
    if (byCard.size === 0) return cardFace(card); // no card to choose now (bidding): the hand, plainly
    return cardFace(card, {
      legal: Boolean(action),
      selected: play.selected.has(card),
      label: action ? action.label : undefined,
      onClick: () => (passing ? togglePass(card) : act(action.id)),
    });
  });
  const note =
    view.hand.length === 0 && view.phase === "blind" ? el("p", { class: "note" }, "Your cards are face down.") : null;
  $("hand").replaceChildren(...(note ? [note] : []), ...cards);
  const extras = [];
  if (view.passed && view.passed.length)
    extras.push(
      el(
        "span",
        {},
        "you passed ",
        view.passed.map((c) => cardFace(c, { small: true })),
      ),
    );
  if (view.discards && view.discards.length)
    extras.push(
      el(
        "span",
        {},
        " your discards ",
        view.discards.map((c) => cardFace(c, { small: true })),
      ),
    );
  if (view.received && view.received.length)
    extras.push(
      el(
        "span",
        {},
        " you received ",
        view.received.map((c) => cardFace(c, { small: true })),
      ),
    );
  $("hand-extra").replaceChildren(...extras);
}

function togglePass(card) {
  const need = passCount(play.view) - (play.view.passed || []).length;
  if (play.selected.has(card)) play.selected.delete(card);
  else if (play.selected.size < need) play.selected.add(card);
  render();
}

/** The pass is one action per card (the engine's pass phase): send the chosen cards one after the other. */
async function confirmPass() {
  const view = play.view;
  const ids = [...play.selected].map((card) => view.legal.find((a) => a.card === card)).filter(Boolean);
  if (play.busy || !ids.length) return;
  play.selected.clear();
  setBusy(true);
  let latest = view;
  try {
    for (const action of ids)
      latest = await api(`/api/games/${view.id}/action`, { method: "POST", body: { action: action.id } });
    showError(null);
  } catch (err) {
    showError(err.message);
    await refresh();
    latest = play.view;
  } finally {
    setBusy(false);
    show(latest);
  }
}

function act(actionId) {
  return send(`/api/games/${play.view.id}/action`, { action: actionId });
}

function drawEvents(view) {
  const items = (view.events || []).map((e) =>
    el(
      "li",
      { class: e.seat === view.seat ? "mine" : "" },
      el("b", {}, seatName(view.seats, e.seat)),
      ` ${withSymbols(e.label)}`,
    ),
  );
  $("events").replaceChildren(...items);
  $("events-empty").hidden = items.length > 0;
}

function drawResult(view) {
  const panel = $("result");
  const over = view.phase === "match_over";
  panel.hidden = !view.hand_result && !over;
  if (panel.hidden) return;
  if (view.hand_result)
    drawBreakdown($("breakdown"), view.hand_result, view.seats, view.rules.n_players, {
      hearts: view.rules.game === "hearts",
    });
  else $("breakdown").replaceChildren();
  $("next-hand").hidden = view.awaiting !== "next_hand";
  $("new-game").hidden = !over;
  const winner = view.winner;
  if (over && winner !== null && winner !== undefined) {
    const side = sidesOf(view.seats, view.scores.length)[winner];
    $("result-title").textContent = `The match is over: ${side ? side.label : `side ${winner}`} won.`;
  } else {
    $("result-title").textContent = over ? "The match is over." : `Hand ${view.hand_number} is over.`;
  }
}

async function showHint() {
  const bot = $("hint-bot").value;
  try {
    const hint = await api(`/api/games/${play.view.id}/hint?bot=${encodeURIComponent(bot)}`);
    const labels = new Map(play.view.legal.map((a) => [String(a.id), a.label]));
    const values = hint.values
      ? Object.entries(hint.values)
          .sort((a, b) => b[1] - a[1])
          .map(([id, v]) => el("li", {}, `${labels.get(id) || id}: ${Number(v).toFixed(2)}`))
      : [];
    $("hint-text").replaceChildren(
      el("p", {}, `${bot} would `, el("b", { "data-action": hint.action }, hint.label)),
      values.length ? el("ol", { class: "hint-values", "aria-label": "action values" }, values) : "",
    );
  } catch (err) {
    showError(err.message);
  }
}
