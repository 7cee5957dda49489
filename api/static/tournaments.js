// The tournaments listing: GET /v1/tournaments, newest first; the cursor lives in the URL.
import { el, getJson, showError, when } from "./dom.js";

const params = new URLSearchParams(location.search);

function row(tournament) {
  return el("tr", { "data-tournament": tournament.id },
    el("td", {}, el("a", { href: `/tournaments/${tournament.id}` }, tournament.name)),
    el("td", {}, tournament.game), el("td", {}, tournament.format), el("td", {}, tournament.status),
    el("td", {}, `${tournament.progress.done} / ${tournament.progress.total}`),
    el("td", {}, when(tournament.created_at)));
}

async function show() {
  const query = new URLSearchParams();
  for (const name of ["cursor", "limit"]) if (params.get(name)) query.set(name, params.get(name));
  const page = await getJson(`/v1/tournaments?${query}`);
  document.querySelector("#tournaments tbody").replaceChildren(...page.tournaments.map(row));
  const next = document.getElementById("next");
  next.hidden = page.next_cursor === null;
  if (page.next_cursor !== null) next.href = `?cursor=${page.next_cursor}`;
}

show().catch(showError);
