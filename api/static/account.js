// An account's public page: GET /v1/accounts/<id or name>: its rating on each ladder, the history of each drawn by
// the server (GET /v1/ratings/<ladder>/players/<id>/chart.svg), and its recent matches linked to their replays.
import { el, fixed, getJson, seatName, showError, when } from "./dom.js";

const reference = decodeURIComponent(location.pathname.split("/").pop());

function ratingRow(rating) {
  const [game] = rating.ladder.split(".");
  return el("tr", { "data-ladder": rating.ladder },
    el("td", {}, el("a", { href: `/ratings/${game}?${ladderQuery(rating)}` }, rating.ladder),
      rating.provisional ? " (provisional)" : ""),
    el("td", {}, fixed(rating.ordinal)), el("td", {}, fixed(rating.mu)), el("td", {}, fixed(rating.sigma)),
    el("td", {}, `${fixed(rating.low, 1)} to ${fixed(rating.high, 1)}`), el("td", {}, String(rating.games)),
    el("td", {}, when(rating.last_played)));
}

/** The leaderboard's query of a rating's listing: "mantis.compact.3p" -> edition=compact&players=3, and
 * provisional=true where the player is listed apart. */
function ladderQuery(rating) {
  const parts = rating.ladder.split(".");
  const query = new URLSearchParams({ players: parts.at(-1).replace("p", "") });
  if (parts.length === 3) query.set("edition", parts[1]);
  if (rating.provisional) query.set("provisional", "true");
  return query;
}

function chart(account, rating) {
  return el("figure", { "data-ladder": rating.ladder },
    el("img", { src: `/v1/ratings/${rating.ladder}/players/${account.id}/chart.svg?games=${rating.games}`,
                alt: `${account.name}'s rating history on ${rating.ladder}` }),
    el("figcaption", {}, `${rating.ladder}: mu after each of the last ${rating.history.length} rated matches`));
}

function matchRow(match) {
  const winners = match.result ? match.result.winners.map((seat) => seatName(match.seats[seat])).join(", ") : "";
  return el("tr", { "data-match": match.id },
    el("td", {}, el("a", { href: `/matches/${match.id}` }, match.id.slice(0, 8))), el("td", {}, match.game),
    el("td", {}, match.status), el("td", {}, match.seats.map(seatName).join(", ")), el("td", {}, winners),
    el("td", {}, when(match.created_at)));
}

async function show() {
  const account = await getJson(`/v1/accounts/${encodeURIComponent(reference)}`);
  document.title = `cardroom: ${account.name}`;
  document.getElementById("name").textContent = account.name;
  document.getElementById("summary").textContent =
    `${account.kind} account since ${when(account.created_at)}, rated on ${account.ratings.length} ladder(s)`;
  document.querySelector("#ratings tbody").replaceChildren(...account.ratings.map(ratingRow));
  document.getElementById("charts").replaceChildren(...account.ratings.map((rating) => chart(account, rating)));
  document.querySelector("#recent tbody").replaceChildren(...account.recent_matches.map(matchRow));
}

show().catch(showError);
