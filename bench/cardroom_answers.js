// Plays random Mantis matches through cardroom's REST API learning each move's result from the move's answer
// (version, status, to_act), as boardgame.io's client learns it from the state pushed to it: one request a
// move. The read-then-post client is the peer's own ../shared/peers/cardroom_bench.js.
// usage: PORT=... node cardroom_answers.js MATCHES CONCURRENCY PLAYERS
const PORT = Number(process.env.PORT || 8000);
const BASE = `http://127.0.0.1:${PORT}`;
const [MATCHES, CONC, N] = process.argv.slice(2).map(Number);

async function call(method, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(BASE + path, { method, headers, body: body && JSON.stringify(body) });
  return [r.status, await r.json()];
}

async function playOne() {
  const seats = Array.from({ length: N }, (_, i) => ({ name: 'p' + i }));
  const [s, m] = await call('POST', '/v1/matches', { game: 'mantis', options: { edition: 'classic' }, seats });
  if (s !== 201) throw new Error(`create: ${s} ${JSON.stringify(m)}`);
  const tokens = {};
  for (const st of m.seats) tokens[st.seat] = st.token;
  let moves = 0;
  let cur = m;
  while (cur.status !== 'finished') {
    const seat = cur.to_act[0];
    const k = Math.floor(Math.random() * N);
    const move = k === seat ? { action: 'score' } : { action: 'steal', target: k };
    const [ps, answer] = await call('POST', `/v1/matches/${m.id}/moves`, { move, expected_version: cur.version }, tokens[seat]);
    if (ps !== 201) throw new Error(`move: ${ps} ${JSON.stringify(answer)}`);
    moves++;
    cur = answer;
  }
  return moves;
}

(async () => {
  const t0 = performance.now();
  let total = 0, next = 0;
  async function worker() { while (next < MATCHES) { next++; const k = await playOne(); total += k; } }
  await Promise.all(Array.from({ length: CONC }, worker));
  const dt = (performance.now() - t0) / 1000;
  console.log(`cardroom (move's answer): ${MATCHES} matches, ${total} moves in ${dt.toFixed(1)}s: ${(total / dt).toFixed(0)} moves/s, ${(MATCHES / dt).toFixed(1)} matches/s (conc ${CONC}, ${N} players)`);
})();
