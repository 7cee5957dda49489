// Cards as elements. A card the viewer may see is an element with `data-card` naming it; a card it may
// not see is a back with no identity at all (`data-hidden`), so nothing hidden can reach the page.
// Colour-blind friendly: every colour also has a shape. 9STAX's rule text gives red a circle, green a
// hexagon, blue a square and purple a diamond; the other games' colours get the remaining shapes.
import { el } from "./dom.js";

const SHAPES = {
  circle: '<circle cx="8" cy="8" r="6.5"/>',
  hexagon: '<polygon points="8,1 14.5,4.5 14.5,11.5 8,15 1.5,11.5 1.5,4.5"/>',
  square: '<rect x="2" y="2" width="12" height="12"/>',
  diamond: '<polygon points="8,0.5 15.5,8 8,15.5 0.5,8"/>',
  triangle: '<polygon points="8,1 15,15 1,15"/>',
  star: '<polygon points="8,0.5 10.2,5.6 15.6,5.9 11.4,9.4 12.8,15 8,12 3.2,15 4.6,9.4 0.4,5.9 5.8,5.6"/>',
  heart: '<path d="M8 15 L1.5 8 A3.6 3.6 0 0 1 8 3 A3.6 3.6 0 0 1 14.5 8 Z"/>',
  cross: '<polygon points="5.5,1 10.5,1 10.5,5.5 15,5.5 15,10.5 10.5,10.5 10.5,15 5.5,15 5.5,10.5 1,10.5 1,5.5 5.5,5.5"/>',
};

export const COLOUR_SHAPES = {
  red: "circle", green: "hexagon", blue: "square", purple: "diamond",
  yellow: "triangle", orange: "star", pink: "heart",
};

/** A shape drawn in a colour (an inline SVG, so no font is needed for it). */
export function glyph(colour, shape = COLOUR_SHAPES[colour]) {
  const holder = el("span", { class: `glyph colour-${colour ?? "wild"}`, title: `${colour ?? "wild"} ${shape ?? ""}`.trim() });
  if (shape) holder.innerHTML = `<svg viewBox="0 0 16 16" aria-hidden="true">${SHAPES[shape]}</svg>`;
  return holder;
}

/** A face-up card: `id` goes to data-card (what tests and people compare), `label` is printed on it. */
export function card(id, colour, label = "", { shape = COLOUR_SHAPES[colour], extra = "" } = {}) {
  return el("span", { class: `card face colour-${colour ?? "wild"} ${extra}`.trim(), "data-card": id,
                      title: id }, glyph(colour, shape), label ? el("b", {}, label) : null);
}

/** A card the viewer may not see: a back, with nothing that says what is on the other side. */
export function back(extra = "") {
  return el("span", { class: `card back ${extra}`.trim(), "data-hidden": "" });
}

/** A labelled group: a seat's area, a pile. */
export function area(title, attributes, ...children) {
  return el("section", { class: "area", ...attributes }, el("h3", {}, title), ...children);
}

export function seatTitle(match, seat, extra = "") {
  const you = match.you === seat ? " (you)" : "";
  const name = match.seats[seat]?.name || (match.seats[seat]?.bot ? `bot ${match.seats[seat].bot}` : "");
  return `seat ${seat}${name ? ` · ${name}` : ""}${you}${extra}`;
}
