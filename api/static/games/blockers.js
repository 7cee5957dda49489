// Blockers: the 4×4 grid of Victory cards with its rows A–D, columns 1–4 and four regions, each seat's
// stack with its top raised (the card a take must match), hand, played hand cards and Kicker, and the scores.
import { el } from "../dom.js";
import { area, back, card, seatTitle } from "../cards.js";

const ROWS = ["A", "B", "C", "D"];
const COLUMNS = ["1", "2", "3", "4"];
const REGIONS = { A1: "spades", A2: "spades", B1: "spades", B2: "spades", A3: "clubs", A4: "clubs", B3: "clubs",
                  B4: "clubs", C1: "diamonds", C2: "diamonds", D1: "diamonds", D2: "diamonds", C3: "hearts",
                  C4: "hearts", D3: "hearts", D4: "hearts" };
const SUITS = { spades: "♠", clubs: "♣", diamonds: "♦", hearts: "♥" };

/** A Victory card or a Kicker: its own shape in its own colour, and the colour's initial for colour-blind eyes. */
function victory(c, extra = "") {
  return card(`${c.colour}-${c.shape}`, c.colour, c.colour[0].toUpperCase(), { shape: c.shape, extra });
}

function handCard(label) {
  return label === null ? back("small")
    : el("span", { class: "card face hand", "data-card": `hand-${label}` }, el("b", {}, SUITS[label] ?? label));
}

function grid(places) {
  const header = el("tr", {}, el("th", {}), COLUMNS.map((column) => el("th", {}, column)));
  const rows = ROWS.map((row) => el("tr", {}, el("th", {}, row), COLUMNS.map((column) => {
    const place = `${row}${column}`;
    return el("td", { class: `region-${REGIONS[place]}`, "data-place": place, title: `${place} · ${REGIONS[place]}` },
      places[place] ? victory(places[place]) : el("span", { class: "empty" }, SUITS[REGIONS[place]]));
  })));
  return el("table", { class: "grid" }, header, rows);
}

/** The full state (a finished match) in the view's shape: every hand and Kicker face up. */
export function fullView(state) {
  // a hand deck's order is unknown to everyone, its owner included: the table shows its size
  return { ...state, deck: state.deck.length, hand_decks: state.hand_decks.map((deck) => deck.length),
           totals: state.stacks.map((_, seat) => state.scores.reduce((sum, game) => sum + game[seat], 0)) };
}

export function render(view, match) {
  const seats = view.stacks.map((stack, seat) => {
    return area(seatTitle(match, seat, `${seat === view.turn && !view.finished ? " · to play" : ""} · total ${view.totals[seat]}`),
      { class: `area seat${seat === view.turn ? " turn" : ""}`, "data-seat": seat },
      el("div", { class: "row" }, el("span", { class: "label" }, `stack · ${stack.length}`),
        stack.length ? stack.map((c, index) => victory(c, index === stack.length - 1 ? "top" : "small"))
          : el("em", {}, "empty: the first take is free")),
      el("div", { class: "row" }, el("span", { class: "label" }, `hand · deck ${view.hand_decks[seat]}`),
        view.hands[seat].map(handCard)),
      el("div", { class: "row" }, el("span", { class: "label" }, "played"), view.played[seat].map(handCard)),
      el("div", { class: "row" }, el("span", { class: "label" }, view.kicker_played[seat] ? "kicker (played)" : "kicker"),
        view.kickers[seat] ? victory(view.kickers[seat], "kicker") : back("small")));
  });
  const scores = view.scores.map((game, index) => el("li", {}, `game ${index + 1}: ${game.join(" · ")}`));
  return el("div", { class: "table blockers" },
    el("p", {}, `game ${view.game + 1} of ${view.games} · started by seat ${view.first} · deck ${view.deck}`
      + ` · ${view.passes} passed in a row${view.finished ? " · finished" : ""}`),
    grid(view.grid), scores.length ? el("ol", { class: "scores" }, scores) : null, seats);
}
