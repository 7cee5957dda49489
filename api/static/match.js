// One match: its table at any version (stepping, scrubber, play/pause, deep links ?version=N&seat=S), seen
// by a spectator, by your seat (your token), or after the end by any seat; live matches follow the
// stream; the audit shows the commitment, the revealed seed and the verifier's verdict. An invite link
// (`?join=1`, GET /v1/matches/<id>/invite) offers to take an open seat.
import { el, getJson, postJson, seatName, showError } from "./dom.js";
import * as mantis from "./games/mantis.js";
import * as ninestax from "./games/ninestax.js";
import * as blockers from "./games/blockers.js";
import * as flipout from "./games/flipout.js";

const RENDERERS = { mantis, "9stax": ninestax, blockers, flipout };
const matchId = decodeURIComponent(location.pathname.split("/").pop());
const base = `/v1/matches/${encodeURIComponent(matchId)}`;
const tokenKey = `cardroom.token.${matchId}`;
const accountKey = "cardroom.key";  // an account key given to take a seat, offered again on the next invite
const joinAsked = new URLSearchParams(location.search).get("join") === "1";
const $ = (id) => document.getElementById(id);

const page = {
  match: null,      // the match document as the current perspective's caller sees it now
  steps: [],        // [{version, label}]: the table as dealt, then the version after each move
  index: 0,         // the step shown
  following: true,  // at the last step of a live match: move on as moves arrive
  perspective: new URLSearchParams(location.search).get("seat") ?? "",
  timer: null,
  stream: null,
};

const token = () => localStorage.getItem(tokenKey);
const usesToken = () => page.perspective === "you";

function describe(move) {
  const { action, ...fields } = move;
  const details = Object.entries(fields).map(([name, value]) => `${name} ${value}`).join(", ");
  return details ? `${action} (${details})` : action;
}

async function loadSteps() {
  const steps = await getJson(`${base}/moves`, usesToken() ? token() : null);
  if (steps.start === null) return [];
  return [{ version: steps.start, label: "the deal" },
          ...steps.moves.map((step) => ({ version: step.version, label: `seat ${step.seat}: ${describe(step.move)}` }))];
}

function perspectives(match) {
  const options = [["", "a spectator"]];
  if (token()) options.push(["you", "your seat (token)"]);
  if (match.status === "finished") {
    options.push(...match.seats.map((seat) => [String(seat.seat), `seat ${seat.seat} · ${seatName(seat)}`]));
    options.push(["full", "the full table"]);
  }
  if (!options.some(([value]) => value === page.perspective)) page.perspective = "";
  $("perspective").replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  $("perspective").value = page.perspective;
}

function stateQuery(version) {
  const query = new URLSearchParams({ version });
  if (page.perspective === "full") query.set("full", "true");
  else if (/^\d+$/.test(page.perspective)) query.set("seat", page.perspective);
  return query;
}

/** The table for the current perspective; the full table is the finished match's full state, which the
 * game's renderer turns into a view with every card face up. */
async function tableAt(version) {
  const state = await getJson(`${base}/state?${stateQuery(version)}`, usesToken() ? token() : null);
  const renderer = RENDERERS[state.game];
  if (page.perspective === "full") return renderer.render(renderer.fullView(state.full_state), { ...state, you: null });
  return renderer.render(state.view, state);
}

async function show() {
  const step = page.steps[page.index];
  const query = new URLSearchParams(location.search);
  if (step) query.set("version", step.version);
  if (page.perspective) query.set("seat", page.perspective); else query.delete("seat");
  history.replaceState(null, "", `?${query}`);
  $("scrubber").max = Math.max(page.steps.length - 1, 0);
  $("scrubber").value = page.index;
  $("position").textContent = step ? `step ${page.index} of ${page.steps.length - 1} · version ${step.version}` : "";
  for (const [index, item] of [...$("moves").children].entries()) item.classList.toggle("current", index === page.index);
  $("moves").children[page.index]?.scrollIntoView({ block: "nearest" });
  if (!step) {
    $("table").replaceChildren(el("p", {}, `waiting for players (${page.match.status})`));
    return;
  }
  const table = await tableAt(step.version);
  if (page.steps[page.index] === step) {  // a later click may have moved on while this one loaded
    $("table").replaceChildren(table);
    $("table").dataset.version = step.version;
  }
}

function listMoves() {
  $("moves").replaceChildren(...page.steps.map((step, index) => el("li", { "data-version": step.version },
    el("a", { href: `?version=${step.version}` }, step.label))));
}

function go(index) {
  page.index = Math.max(0, Math.min(index, page.steps.length - 1));
  page.following = page.index === page.steps.length - 1;
  return show().catch(showError);
}

function togglePlay(playing = page.timer === null) {
  clearInterval(page.timer);
  page.timer = null;
  $("play").textContent = playing ? "pause" : "play";
  if (!playing) return;
  if (page.index >= page.steps.length - 1) go(0);
  page.timer = setInterval(() => {
    if (page.index >= page.steps.length - 1) togglePlay(false); else go(page.index + 1);
  }, Number($("speed").value));
}

async function showAudit() {
  const match = page.match;
  const box = $("audit");
  const items = [el("p", {}, "commitment (SHA-256 of salt:seed, published at the start): ",
                      el("code", { id: "commitment" }, match.commitment)),
                 el("p", {}, `seed chosen by: ${match.seed_source}`)];
  if (match.status === "finished") {
    const last = await getJson(`${base}/events?after=${match.version - 1}&limit=1`);
    const { seed, salt } = last.events[0].data;
    items.push(el("p", {}, "revealed seed: ", el("code", { id: "seed" }, seed), " salt: ", el("code", {}, salt)));
  } else {
    items.push(el("p", {}, "the seed is revealed at the end"));
  }
  const verdict = await getJson(`${base}/audit`);
  items.push(el("p", { id: "verdict", class: verdict.ok ? "ok" : "error" },
                `verifier: ${verdict.ok ? "✔ passed" : "✘ FAILED"} · ${verdict.summary}`),
             el("p", {}, el("a", { id: "export", href: `${base}/export`, download: `match-${matchId}.json` },
                             "download the export"), " then run ", el("code", {}, `cardroom verify match-${matchId}.json`)));
  box.replaceChildren(...items);
}

/** Follows a live match over the stream (NDJSON through fetch, so a seat token can go in a header). */
async function follow() {
  page.stream?.abort();
  if (page.match.status === "finished") return;
  const controller = new AbortController();
  page.stream = controller;
  $("live").hidden = false;
  const headers = { Accept: "application/x-ndjson" };
  if (usesToken()) headers.Authorization = `Bearer ${token()}`;
  try {
    const response = await fetch(`${base}/stream`, { headers, signal: controller.signal });
    const lines = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      buffered += value;
      const complete = buffered.split("\n");
      buffered = complete.pop();
      for (const line of complete) if (line.trim() && JSON.parse(line).type === "match") await caughtUp(JSON.parse(line));
    }
  } catch (error) {
    if (error.name !== "AbortError") showError(error);
  }
  if (page.stream === controller) $("live").hidden = true;
}

/** The invite link's offer: an open seat to take, until none is left (or this browser holds a seat already). */
function offerSeat(match) {
  const open = match.status === "waiting" && match.seats.some((seat) => seat.open);
  $("join-form").hidden = !(joinAsked && open && !token());
  if (joinAsked && !open && !token()) showError("no_open_seats: this match has no open seat left to take");
}

/** Where a rematch leads: the match this one replays, and this one's rematch once a seat asked for it. */
function showLinks(match) {
  const link = (id) => el("a", { href: `/matches/${encodeURIComponent(id)}` }, id);
  const parts = [match.rematch_of && ["rematch of ", link(match.rematch_of)],
                 match.rematch && ["rematch: ", link(match.rematch)]].filter(Boolean);
  $("links").replaceChildren(...parts.flatMap((part, index) => index ? [" · ", ...part] : part));
  $("links").hidden = parts.length === 0;
}

async function caughtUp(current) {
  page.match = current;
  offerSeat(current);
  page.steps = await loadSteps();
  listMoves();
  if (page.following) page.index = page.steps.length - 1;
  if (current.status === "finished") {
    perspectives(current);
    await showAudit();
  }
  await show();
}

async function start() {
  page.match = await getJson(base, token());
  document.title = `cardroom: ${page.match.game} ${matchId}`;
  $("title").textContent = `${page.match.game} · ${page.match.status} · ${page.match.seats.map(seatName).join(" vs ")}`;
  $("rules").href = `/docs/games/${page.match.game}`;
  perspectives(page.match);
  offerSeat(page.match);
  showLinks(page.match);
  page.steps = await loadSteps();
  listMoves();
  const wanted = Number(new URLSearchParams(location.search).get("version"));
  const found = page.steps.findIndex((step) => step.version >= wanted);
  page.index = wanted && found >= 0 ? found : page.steps.length - 1;
  page.following = page.index === page.steps.length - 1;
  await show();
  await showAudit();
  follow();
}

$("back").addEventListener("click", () => go(page.index - 1));
$("forward").addEventListener("click", () => go(page.index + 1));
$("scrubber").addEventListener("input", (event) => go(Number(event.target.value)));
$("play").addEventListener("click", () => togglePlay());
$("speed").addEventListener("change", () => { if (page.timer !== null) togglePlay(true); });
$("moves").addEventListener("click", (event) => {
  const item = event.target.closest("li");
  if (!item) return;
  event.preventDefault();
  go([...$("moves").children].indexOf(item));
});
document.addEventListener("keydown", (event) => {
  if (["INPUT", "SELECT"].includes(event.target.tagName)) return;
  if (event.key === "ArrowLeft") go(page.index - 1);
  if (event.key === "ArrowRight") go(page.index + 1);
});
$("perspective").addEventListener("change", async (event) => {
  page.perspective = event.target.value;
  await show().catch(showError);
  follow();
});
$("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  localStorage.setItem(tokenKey, $("token").value.trim());
  $("token").value = "";
  page.perspective = "you";
  location.search = `?version=${page.steps[page.index]?.version ?? ""}&seat=you`;
});
$("join-key").value = localStorage.getItem(accountKey) ?? "";
$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const key = $("join-key").value.trim();
  const name = $("join-name").value.trim();
  try {  // with a key the seat is the account's and the key acts for it; else the answer's seat token does
    const joined = await postJson(`${base}/join`, name && !key ? { name } : {}, key || null);
    if (key) localStorage.setItem(accountKey, key);
    localStorage.setItem(tokenKey, joined.token ?? key);
    location.search = "?seat=you";
  } catch (error) {
    showError(error);
  }
});
$("forget").addEventListener("click", () => {
  localStorage.removeItem(tokenKey);
  location.search = `?version=${page.steps[page.index]?.version ?? ""}`;
});

start().catch(showError);
