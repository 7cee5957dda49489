// A client of the turn feed written against the generated types only (docs/api.md): `tsc --strict` over it checks
// that the document gives a TypeScript client what it needs (tests/unit/test_client_generation.py).
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/cardroom";

type Schemas = components["schemas"];
type FeedFrame = Schemas["FeedFrame"];
type MatchStreamFrame = Schemas["MatchStreamFrame"];

/** Each JSON line of an NDJSON body as it comes; an empty line is a keep-alive. */
export async function* ndjson<Frame>(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const lines = (buffered + decoder.decode(read.value, { stream: true })).split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim()) yield JSON.parse(line) as Frame;
    }
  }
}

/** Plays the first legal move of every turn the account's feed tells, resuming after the last position it got. */
export async function play(base: string, key: string, after: number | null): Promise<number | null> {
  const api = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${key}` } });
  const query = new URLSearchParams({ with: "view", ...(after === null ? {} : { after: String(after) }) });
  const feed = await fetch(`${base}/v1/accounts/me/stream?${query}`,
                           { headers: { Authorization: `Bearer ${key}`, Accept: "application/x-ndjson" } });
  if (!feed.ok || !feed.body) return after;
  let position = after;
  for await (const frame of ndjson<FeedFrame>(feed.body)) {
    position = frame.position;
    if (frame.type === "challenge") {
      await api.POST("/v1/matches/{match_id}/accept", { params: { path: { match_id: frame.match } } });
    } else if (frame.type === "your_turn" && frame.legal_moves?.length) {
      const { data, error } = await api.POST("/v1/matches/{match_id}/moves", {
        params: { path: { match_id: frame.match }, header: { "Idempotency-Key": `turn-${frame.version}` } },
        body: { move: frame.legal_moves[0], expected_version: frame.version },
      });
      if (error) console.log(`${error.code} ${error.reason}`);  // 409 version_conflict: the turn is gone
      else console.log(`now at ${data.version}, ${data.status}`);
    } else if (frame.type === "match_finished") {
      console.log(frame.result.winners.includes(frame.seat) ? "won" : "lost");
    }
  }
  return position;
}

/** The result a match stream ends with, from its last document. */
export function finalResult(frames: MatchStreamFrame[]): Schemas["Result"] | null {
  const documents = frames.filter((frame): frame is Schemas["MatchFrame"] => "legal_moves" in frame);
  return documents.at(-1)?.result ?? null;
}

/** A match against a house bot, with the body the document types game by game. */
export async function challengeTheHouse(base: string, key: string): Promise<string | undefined> {
  const api = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${key}` } });
  const { data } = await api.POST("/v1/matches", {
    body: { game: "mantis", seats: [{ account: "me" }, { bot: "greedy" }] },
  });
  return data?.id;
}
