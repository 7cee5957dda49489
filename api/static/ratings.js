// A game's leaderboard: GET /v1/ratings/<game>, best first by ordinal; the ladder (edition, players), the listing
// (established, or provisional: listed apart) and the page live in the URL. Accounts link to their page; house bots
// (the anchors) have none.
import { el, fixed, getJson, showError, when } from "./dom.js";

const game = decodeURIComponent(location.pathname.split("/").pop());
const params = new URLSearchParams(location.search);

function row(entry) {
  const name = entry.kind === "account" ? el("a", { href: `/accounts/${entry.player}` }, entry.name)
    : el("span", { title: entry.player }, entry.name);
  return el("tr", { "data-player": entry.player },
    el("td", {}, String(entry.rank)), el("td", {}, name), el("td", {}, fixed(entry.ordinal)),
    el("td", {}, fixed(entry.mu)), el("td", {}, fixed(entry.sigma)),
    el("td", {}, `${fixed(entry.low, 1)} to ${fixed(entry.high, 1)}`), el("td", {}, String(entry.games)),
    el("td", {}, when(entry.last_played)));
}

async function fillForm(form) {
  const games = await getJson("/v1/games");
  const list = games.games || games;
  form.game.replaceChildren(...list.map((g) => el("option", { value: g.id, selected: g.id === game }, g.name)));
  const chosen = list.find((g) => g.id === game);
  const edition = (chosen?.options || []).find((option) => option.name === "edition");
  form.edition.replaceChildren(el("option", { value: "" }, "default"),
    ...(edition?.choices || []).map((c) => el("option", { value: c, selected: c === params.get("edition") }, c)));
  form.edition.disabled = !edition;
  form.players.value = params.get("players") || "2";
  form.addEventListener("change", () => {
    const query = new URLSearchParams();
    if (form.edition.value) query.set("edition", form.edition.value);
    query.set("players", form.players.value);
    location.href = `/ratings/${form.game.value}?${query}`;
  });
}

async function show() {
  await fillForm(document.getElementById("ladder"));
  const query = new URLSearchParams();
  for (const name of ["edition", "players", "offset", "limit", "provisional"]) {
    if (params.get(name)) query.set(name, params.get(name));
  }
  const board = await getJson(`/v1/ratings/${encodeURIComponent(game)}?${query}`);
  document.title = `cardroom: ${board.ladder}`;
  document.getElementById("name").textContent = `Leaderboard ${board.ladder}` + (board.provisional ? ", provisional" : "");
  const listing = board.provisional ? "provisional players (too few rated matches or opponents to rank)"
    : "ranked players";
  document.getElementById("summary").textContent = board.total
    ? `${board.total} ${listing}, sorted by ordinal (mu - 3 sigma)` : `no ${listing} on this ladder yet`;
  const other = new URLSearchParams(query);
  other.delete("offset");
  if (board.provisional) other.delete("provisional"); else other.set("provisional", "true");
  const apart = document.getElementById("other");
  apart.href = `?${other}`;
  apart.textContent = board.provisional ? `the ranked players (${board.totals.established})`
    : `the provisional players, listed apart (${board.totals.provisional})`;
  document.querySelector("#leaderboard tbody").replaceChildren(...board.entries.map(row));
  const next = document.getElementById("next");
  next.hidden = board.next_offset === null;
  if (board.next_offset !== null) {
    const following = new URLSearchParams(query);
    following.set("offset", board.next_offset);
    next.href = `?${following}`;
  }
}

show().catch(showError);
