// 9STAX: each seat's row of stacks (the held one raised), the discard pile's top and the lead, the draw
// pile, the direction of play, the immunity tiles, a Reveal and the step that is pending.
import { el } from "../dom.js";
import { area, back, card, seatTitle } from "../cards.js";

const FACES = { attack: "Attack", swap: "Swap", discard: "Discard", reverse: "Reverse", peek: "Peek",
                reveal: "Reveal", color_shift: "Color Shift", free_discard: "Free Discard" };

function nineCard(c) {
  return c ? card(`${c.colour ?? "wild"}-${c.face}`, c.colour, FACES[c.face] ?? c.face) : back();
}

function stack(cards, position, held, revealed) {
  return el("div", { class: `stack${held ? " held" : ""}${revealed ? " revealed" : ""}`, "data-stack": position },
    el("span", { class: "label" }, `#${position + 1}${held ? " held" : ""}`),
    el("div", { class: "fan" }, cards.map(nineCard)));
}

/** The full state (a finished match) in the view's shape: every card face up. */
export function fullView(state) {
  return { ...state, cards_left: state.stacks.map((stacks) => stacks.reduce((sum, cards) => sum + cards.length, 0)),
           draw_pile: state.draw_pile.length,
           discard_pile: { count: state.discard_pile.length, top: state.discard_pile.at(-1) ?? null } };
}

export function render(view, match) {
  const direction = view.direction === 1 ? "↻ clockwise (up the seat numbers)" : "↺ counter-clockwise (down the seat numbers)";
  const pending = view.pending ? `pending: ${view.pending.kind} (seat ${view.pending.seat})` : "";
  const revealed = (seat, position) => view.reveal && view.reveal.stack === position
    && seat !== view.reveal.revealer && !view.reveal.immune.includes(seat);
  const centre = el("div", { class: "centre" },
    area(`draw pile · ${view.draw_pile}`, { class: "area pile" }, view.draw_pile ? back() : el("em", {}, "empty")),
    area(`discard pile · ${view.discard_pile.count}`, { class: "area pile" },
      view.discard_pile.top ? nineCard(view.discard_pile.top) : el("em", {}, "empty")),
    area("lead", { class: "area pile" }, view.lead ? nineCard(view.lead) : el("em", {}, "any card")),
    el("p", { class: "direction" }, direction),
    el("p", {}, `turn ${view.turns} of at most ${view.max_turns}${pending ? ` · ${pending}` : ""}`),
    view.reveal ? el("p", {}, `revealed: stack #${view.reveal.stack + 1} (by seat ${view.reveal.revealer})`) : null);
  const seats = view.stacks.map((stacks, seat) => area(
    seatTitle(match, seat, `${seat === view.turn ? " · to play" : ""} · ${view.cards_left[seat]} cards`),
    { class: `area seat${seat === view.turn ? " turn" : ""}`, "data-seat": seat },
    el("p", { class: "immunity" }, view.immunity[seat] ? "immunity tile unused" : "immunity tile used"),
    el("div", { class: "stacks" },
      stacks.map((cards, position) => stack(cards, position, view.held[seat] === position, revealed(seat, position))))));
  const winners = view.winners ? el("p", { class: "result" }, `winners: seats ${view.winners.join(", ")}`) : null;
  return el("div", { class: "table ninestax" }, centre, winners, seats);
}
