// The listing: GET /v1/matches with the page's filters; the filters and the cursor live in the URL, so a
// filtered page can be shared and the browser's back button works.
import { el, getJson, seatName, showError, when } from "./dom.js";

const params = new URLSearchParams(location.search);
const form = document.getElementById("filters");

async function fillGames() {
  const { games } = await getJson("/v1/games");
  form.game.append(...games.map((game) => el("option", { value: game.id }, game.name)));
  form.game.value = params.get("game") ?? "";
  form.status.value = params.get("status") ?? "";
}

function row(match) {
  const winners = match.result ? match.result.winners.map((seat) => seatName(match.seats[seat])).join(", ") : "";
  return el("tr", { "data-match": match.id },
    el("td", {}, el("a", { href: `/matches/${match.id}` }, match.id.slice(0, 12))),
    el("td", {}, match.game), el("td", {}, match.status),
    el("td", {}, match.seats.map(seatName).join(", ")), el("td", {}, String(match.version)),
    el("td", {}, winners), el("td", {}, when(match.created_at)));
}

async function show() {
  const query = new URLSearchParams();
  for (const name of ["game", "status", "cursor", "limit"]) if (params.get(name)) query.set(name, params.get(name));
  const page = await getJson(`/v1/matches?${query}`);
  document.querySelector("#matches tbody").replaceChildren(...page.matches.map(row));
  const next = document.getElementById("next");
  next.hidden = page.next_cursor === null;
  if (page.next_cursor !== null) {
    const nextParams = new URLSearchParams(query);
    nextParams.set("cursor", page.next_cursor);
    next.href = `?${nextParams}`;
  }
}

form.addEventListener("change", () => {
  const query = new URLSearchParams();
  for (const name of ["game", "status"]) if (form[name].value) query.set(name, form[name].value);
  if (params.get("limit")) query.set("limit", params.get("limit"));
  location.search = query.toString();
});

Promise.all([fillGames(), show()]).catch(showError);
