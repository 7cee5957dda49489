// FlipOut: each seat's holder of 6 places; a seat sees the inner faces of its own holder and the outer
// faces of everyone else's, a spectator only outer faces. The deck's up face and the collected sets.
import { el } from "../dom.js";
import { area, back, card, seatTitle } from "../cards.js";

/** One place of a holder: each face this viewer sees (inner, outer or, on the full table, both); a face
 * it does not see is a back. */
function place({ inner, outer }, index) {
  const faces = [["inner", inner, "in"], ["outer", outer, "out"]].filter(([, colour]) => colour !== null);
  return el("div", { class: "place", "data-place": index },
    faces.length ? faces.map(([side, colour, label]) => card(`${side}-${colour}`, colour, label)) : back());
}

/** The full state (a finished match) in the view's shape: both faces of every holder card. */
export function fullView(state) {
  return { ...state, deck: { count: state.deck.length, top: state.deck[0]?.up ?? null } };
}

export function render(view, match) {
  const seats = view.holders.map((holder, seat) => area(
    seatTitle(match, seat, `${seat === view.turn && !view.finished ? ` · to play (${view.actions_left} actions left)` : ""}`
      + ` · score ${view.score_piles[seat].length}${view.tokens ? ` · tokens ${view.tokens[seat]}` : ""}`),
    { class: `area seat${seat === view.turn ? " turn" : ""}`, "data-seat": seat },
    el("div", { class: "holder" }, holder.map(place)),
    el("div", { class: "row" }, el("span", { class: "label" }, "collected"),
      view.score_piles[seat].map((c) => card(`${c.colour}/${c.other}`, c.colour, "", { extra: "small" })))));
  const end = view.end ? ` · ended: ${view.end.reason.replace("_", " ")}` : "";
  return el("div", { class: "table flipout" },
    el("p", {}, `turn ${view.turns + 1}${end}`),
    area(`deck · ${view.deck.count}`, { class: "area pile" },
      view.deck.top ? card(`up-${view.deck.top}`, view.deck.top, "up") : el("em", {}, "empty")),
    seats);
}
