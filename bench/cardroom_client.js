// Plays random Mantis matches through cardroom's REST API, as the peer's clients play them (../shared/peers):
//   MODE=answers (default): learns each result from the move's answer (version, status, to_act), as
//     boardgame.io's client learns it from the state pushed to it: one request a move;
//   MODE=read-then-post: reads the match, then posts the move (two requests a move), as the peer's
//     cardroom_bench.js does.
//   TRANSPORT=http (default): Node's own http module with a keep-alive agent, what a Node client that cares
//     for its CPU uses; TRANSPORT=fetch: the fetch() of the peer's client (undici), which took about 1.2 ms
//     of the client's CPU a request against 0.3 ms for http on this machine (docs/performance.md);
//     TRANSPORT=socket: moves over the play socket (GET /v1/play, docs/play-socket.md), one WebSocket per
//     concurrent match, as boardgame.io's client keeps one socket.io connection; the rest over http. It
//     needs the `ws` package (bench/peer.py installs it; NODE_PATH says where).
// usage: PORT=... MODE=... TRANSPORT=... node cardroom_client.js MATCHES CONCURRENCY PLAYERS
const http = require('http');
const PORT = Number(process.env.PORT || 8000);
const MODE = process.env.MODE || 'answers';
const TRANSPORT = process.env.TRANSPORT || 'http';
const [MATCHES, CONC, N] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function headersFor(body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

async function viaFetch(method, path, body, token) {
  const r = await fetch(`http://127.0.0.1:${PORT}${path}`, { method, headers: headersFor(body, token), body });
  return [r.status, await r.json()];
}

function viaHttp(method, path, body, token) {
  return new Promise((resolve, reject) => {
    const headers = headersFor(body, token);
    if (body) headers['content-length'] = Buffer.byteLength(body);
    const request = http.request({ host: '127.0.0.1', port: PORT, method, path, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve([response.statusCode, JSON.parse(Buffer.concat(chunks))]));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const send = TRANSPORT === 'fetch' ? viaFetch : viaHttp;
const call = (method, path, body, token) => send(method, path, body && JSON.stringify(body), token);

// The play socket: a function that sends one move and resolves to [status, body] when its answer comes.
function openPlaySocket() {
  const WebSocket = require('ws');
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${PORT}/v1/play`, { perMessageDeflate: false });
    const waiting = new Map();
    let sent = 0;
    socket.on('message', (data) => {
      const answer = JSON.parse(data);
      waiting.get(answer.id)([answer.status, answer.body]);
      waiting.delete(answer.id);
    });
    socket.on('error', reject);
    socket.on('open', () => resolve((matchId, body, token) => new Promise((done) => {
      const id = ++sent;
      waiting.set(id, done);
      socket.send(JSON.stringify({ id, match_id: matchId, token, ...body }));
    })));
  });
}

async function mover() {
  if (TRANSPORT !== 'socket') return (matchId, body, token) => call('POST', `/v1/matches/${matchId}/moves`, body, token);
  return openPlaySocket();
}

function randomMove(seat) {
  const k = Math.floor(Math.random() * N);
  return k === seat ? { action: 'score' } : { action: 'steal', target: k };
}

async function playOne(move) {
  const seats = Array.from({ length: N }, (_, i) => ({ name: 'p' + i }));
  const [s, m] = await call('POST', '/v1/matches', { game: 'mantis', options: { edition: 'classic' }, seats });
  if (s !== 201) throw new Error(`create: ${s} ${JSON.stringify(m)}`);
  const tokens = {};
  for (const st of m.seats) tokens[st.seat] = st.token;
  let moves = 0;
  let cur = m;
  for (;;) {
    if (MODE === 'read-then-post') [, cur] = await call('GET', `/v1/matches/${m.id}`);
    if (cur.status === 'finished') return moves;
    const seat = cur.to_act[0];
    const body = { move: randomMove(seat), expected_version: cur.version };
    const [status, answer] = await move(m.id, body, tokens[seat]);
    if (status !== 201) throw new Error(`move: ${status} ${JSON.stringify(answer)}`);
    moves++;
    cur = answer;
  }
}

(async () => {
  const t0 = performance.now();
  let total = 0, next = 0;
  // not `total += await playOne()`: that reads total before the await and loses the other workers' moves
  async function worker() {
    const move = await mover();
    while (next < MATCHES) { next++; const moves = await playOne(move); total += moves; }
  }
  await Promise.all(Array.from({ length: CONC }, worker));
  const dt = (performance.now() - t0) / 1000;
  console.log(`cardroom (${MODE}, ${TRANSPORT}): ${MATCHES} matches, ${total} moves in ${dt.toFixed(1)}s: ` +
              `${(total / dt).toFixed(0)} moves/s, ${(MATCHES / dt).toFixed(1)} matches/s (conc ${CONC}, ${N} players)`);
  process.exit(0);  // the play sockets stay open
})();
