// Mantis (classic and compact): the draw pile's top back, each seat's tank face up, score piles face down.
import { el } from "../dom.js";
import { area, back, card, glyph, seatTitle } from "../cards.js";

function backColours(colours) {
  return el("span", { class: "back-colours", title: `back: ${colours.join(", ")}` }, colours.map((c) => glyph(c)));
}

/** A tank card: its front, and under it the three colours of its back (tanks are public). */
function tankCard({ front, back: colours }) {
  const face = card(`${front}:${colours.join("+")}`, front, "", { extra: "mantis" });
  face.append(backColours(colours));
  return face;
}

/** The score pile's cards where this viewer may see them: your own, or all of them on the full table. */
function scoreCards(view, match, seat) {
  return view.all_score_piles?.[seat] ?? (seat === match.you ? view.own_score_pile : null);
}

/** The full state (a finished match) in the view's shape, with every score pile's cards. */
export function fullView(state) {
  return { ...state, draw_pile: { count: state.draw_pile.length, top_back: state.draw_pile[0]?.back ?? null },
           score_piles: state.score_piles.map((pile) => pile.length), own_score_pile: null,
           all_score_piles: state.score_piles };
}

export function render(view, match) {
  const drawPile = area(`draw pile · ${view.draw_pile.count} cards`, { class: "area pile" },
    view.draw_pile.top_back
      ? el("span", { class: "card back mantis-back", "data-back": view.draw_pile.top_back.join("+") },
           backColours(view.draw_pile.top_back))
      : el("em", {}, "empty"));
  const seats = view.tanks.map((tank, seat) => area(seatTitle(match, seat, seat === view.turn ? " · to play" : ""),
    { class: `area seat${seat === view.turn ? " turn" : ""}`, "data-seat": seat },
    el("div", { class: "row" }, el("span", { class: "label" }, "tank"), tank.map(tankCard)),
    el("div", { class: "row" }, el("span", { class: "label" }, `score pile · ${view.score_piles[seat]} / ${view.target}`),
      scoreCards(view, match, seat)?.map(tankCard)
        ?? Array.from({ length: view.score_piles[seat] }, () => back("small")))));
  return el("div", { class: "table mantis" },
    el("p", {}, `${view.edition} edition · first to ${view.target} score cards`), drawPile, seats);
}
