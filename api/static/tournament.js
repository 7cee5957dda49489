// One tournament: progress, standings, the ratings chart and every round's tables linking their matches.
// While it runs the page reloads its data every few seconds; it stops once the tournament is finished.
import { el, getJson, showError } from "./dom.js";

const id = location.pathname.split("/").pop();
const REFRESH_MS = 3000;
const fixed = (value, digits = 2) => (value === null ? "-" : value.toFixed(digits));

function standingsRow(row, place) {
  const share = row.share === null ? "-" : `${fixed(row.share, 3)} [${fixed(row.share_low, 3)}, ${fixed(row.share_high, 3)}]`;
  return el("tr", { "data-entrant": row.entrant },
    el("td", {}, String(place + 1)), el("td", {}, row.name), el("td", {}, String(row.matches)),
    el("td", {}, fixed(row.points, 1)), el("td", {}, share), el("td", {}, fixed(row.rating.mu)),
    el("td", {}, fixed(row.rating.sigma)), el("td", {}, fixed(row.rating.ordinal)));
}

function roundBlock(round, entrants) {
  const name = (entrant) => entrants[entrant].name;
  const table = (t) => el("li", { "data-table": t.table },
    t.entrants.map(name).join(" vs "), t.deal === null ? "" : ` (deal ${t.deal})`, " · ",
    t.match ? el("a", { href: `/matches/${t.match}` }, t.result ? "finished" : "playing") : "waiting",
    t.result ? ` · won by ${t.result.winners.map((seat) => name(t.entrants[seat])).join(", ")}` : "");
  const byes = round.byes.length ? el("p", {}, `byes: ${round.byes.map(name).join(", ")}`) : null;
  return el("section", { "data-round": round.round }, el("h3", {}, `Round ${round.round}`), byes,
    el("ul", {}, round.tables.map(table)));
}

async function show() {
  const tournament = await getJson(`/v1/tournaments/${id}`);
  const standings = await getJson(`/v1/tournaments/${id}/standings`);
  const { done, total } = tournament.progress;
  document.title = `cardroom: ${tournament.name}`;
  document.getElementById("name").textContent = tournament.name;
  const eta = tournament.eta_seconds === null ? "" : `, about ${Math.round(tournament.eta_seconds)} s left`;
  document.getElementById("summary").textContent =
    `${tournament.game}, ${tournament.format.replace("_", " ")}, ${tournament.status}: ${done} of ${total} matches${eta}`;
  Object.assign(document.getElementById("progress"), { max: total, value: done });
  document.querySelector("#standings tbody").replaceChildren(...standings.entrants.map(standingsRow));
  document.getElementById("chart").src = `/v1/tournaments/${id}/chart.svg?version=${tournament.version}`;
  document.getElementById("rounds").replaceChildren(...tournament.pairings.map((r) => roundBlock(r, tournament.entrants)));
  document.getElementById("export").href = `/v1/tournaments/${id}/export`;
  document.body.dataset.status = tournament.status;
  if (tournament.status !== "finished") setTimeout(() => show().catch(showError), REFRESH_MS);
}

show().catch(showError);
