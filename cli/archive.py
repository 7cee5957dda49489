"""`cardroom dump DIR --url URL --since DAY`: a server's finished matches, from its public API as an outside auditor
would read them, into one gzipped NDJSON file a day and a manifest; a second run writes only the days not yet dumped.
`cardroom verify DIR` (`verify_dump`) checks such a dump offline, on every core. docs/archive.md describes the layout.
"""
import gzip
import hashlib
import json
import os
import re
import sys
import urllib.parse
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from tqdm import tqdm

from cli.bot import Client, HttpError
from eventstore.chain import canonical
from service.audit import EXPORT_FORMAT, verify_export
from service.matches.exports import MOST_PER_REQUEST

DUMP_FORMAT = "cardroom-dump/1"
MANIFEST = "manifest.json"
DAY_FIELDS = {"day", "file", "matches", "sha256", "first", "last"}
UNREADABLE = (OSError, EOFError, zlib.error)  # a day file that is not gzip, or cut short
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)  # what verify_export raises on odd shapes
DAY_FILE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.ndjson\.gz")
# how long after its end a day is dumped: the server holds back its last 10 seconds (service/matches/exports.py),
# and this leaves room for the two clocks to differ
DAY_SETTLED = timedelta(minutes=1)
# the day files' gzip level: they are kept, so 4.92x smaller than the JSON rather than the stream's 3.98x (level 1 on
# the server), for 0.91 ms of the auditor's CPU a match rather than 0.43 (docs/archive.md)
FILE_LEVEL = 6


def add_dump_command(commands) -> None:
    dump = commands.add_parser("dump", help="write a server's finished matches to DIR, a gzipped NDJSON file a day "
                                            "with a manifest; again, only the days not yet there")
    dump.add_argument("dir", type=Path, help="the dump's directory (made if missing)")
    dump.add_argument("--url", required=True, help="the server, e.g. http://localhost:8000")
    dump.add_argument("--since", required=True, type=date.fromisoformat, help="the first day, YYYY-MM-DD (UTC)")
    dump.add_argument("--until", type=date.fromisoformat,
                      help="the day after the last, YYYY-MM-DD (default: today, so up to yesterday)")
    dump.add_argument("--game", help="only this game's matches (a dump holds one game or all)")


def run_dump(args) -> int:
    try:
        written = dump(args.dir, Client(args.url), args.since, args.until or datetime.now(timezone.utc).date(),
                       args.game, source=args.url)
    except (HttpError, OSError, ValueError) as error:  # refused, unreachable, or a dump of something else
        print(f"cardroom dump: {error}", file=sys.stderr)
        return 2
    print(f"{len(written)} days written: {', '.join(written) or 'none new'}")
    return 0


def dump(directory: Path, client: Client, since: date, until: date, game: str | None, source: str,
         now=lambda: datetime.now(timezone.utc)) -> list[str]:
    """Writes each day from `since` to before `until` that has ended and is not in the manifest yet; the days it
    wrote. The manifest is rewritten after each day, so an interrupted dump resumes at the day it was writing."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(directory) or {"format": DUMP_FORMAT, "game": game, "days": []}
    if not well_formed(manifest):
        raise ValueError(f"{directory / MANIFEST} is not a {DUMP_FORMAT} manifest")
    if manifest.get("game") != game:
        raise ValueError(f"{directory} holds a dump of game {manifest.get('game') or 'all'}, not of {game or 'all'}")
    done = {entry["day"] for entry in manifest["days"]}
    written = []
    for day in (since + timedelta(days=n) for n in range((until - since).days)):
        if day.isoformat() in done:
            continue
        if _start(day + timedelta(days=1)) + DAY_SETTLED > now():
            break
        manifest["days"] = sorted([*manifest["days"], _dump_day(directory, client, day, game)], key=lambda e: e["day"])
        _write_manifest(directory, {**manifest, "source": source})
        written.append(day.isoformat())
    return written


def _dump_day(directory: Path, client: Client, day: date, game: str | None) -> dict:
    """One day's matches into its file (written aside, then renamed into place); its entry in the manifest."""
    name = f"{day.isoformat()}.ndjson.gz"
    aside = directory / f".{name}.part"
    count, first, last = 0, b"", b""
    with gzip.open(aside, "wb", compresslevel=FILE_LEVEL) as out:
        for line in _day_lines(client, day, game):
            out.write(line + b"\n")
            count += 1
            first, last = first or line, line
    if not count:
        aside.unlink()
        return {"day": day.isoformat(), "file": None, "matches": 0, "sha256": None, "first": None, "last": None}
    os.replace(aside, directory / name)
    return {"day": day.isoformat(), "file": name, "matches": count, "sha256": file_sha256(directory / name),
            "first": json.loads(first)["match_id"], "last": json.loads(last)["match_id"]}


def _day_lines(client: Client, day: date, game: str | None):
    """The day's exports, oldest first, a request of at most MOST_PER_REQUEST at a time, each resumed after the
    last match of the one before."""
    query = {"since": _start(day).isoformat(), "until": _start(day + timedelta(days=1)).isoformat(),
             "limit": MOST_PER_REQUEST, **({"game": game} if game else {})}
    last = b""
    while True:
        page = {**query, **({"after": json.loads(last)["match_id"]} if last else {})}
        count = 0
        for last in client.lines(f"/v1/matches/export?{urllib.parse.urlencode(page)}"):
            count += 1
            yield last
        if count < MOST_PER_REQUEST:
            return


def _start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def read_manifest(directory: Path) -> dict | None:
    path = directory / MANIFEST
    return json.loads(path.read_text()) if path.exists() else None


def _write_manifest(directory: Path, manifest: dict) -> None:
    days = manifest["days"]
    listed = [entry for entry in days if entry["matches"]]
    content = {**{k: v for k, v in manifest.items() if k != "sha256"}, "matches": sum(e["matches"] for e in days),
               "first": listed[0]["first"] if listed else None, "last": listed[-1]["last"] if listed else None}
    aside = directory / f".{MANIFEST}.part"
    aside.write_text(json.dumps({**content, "sha256": manifest_sha256(content)}, indent=2) + "\n")
    os.replace(aside, directory / MANIFEST)


def manifest_sha256(manifest: dict) -> str:
    """The dump's own hash: SHA-256 of the manifest's canonical JSON without this hash (eventstore/chain.py)."""
    return hashlib.sha256(canonical({k: v for k, v in manifest.items() if k != "sha256"})).hexdigest()


def file_sha256(path: Path) -> str:
    with path.open("rb") as read:
        return hashlib.file_digest(read, "sha256").hexdigest()


def verify_dump(directory: Path, as_json: bool = False) -> int:
    """`cardroom verify DIR`: the manifest (its hash, each file's hash, count, first and last match), then every match
    on every core, with a progress bar when standard output is a terminal. Prints the failures by match id; 0 when
    all of it holds, 1 when anything fails, 2 when there is no manifest to read."""
    try:
        manifest = read_manifest(directory)
    except (OSError, ValueError) as error:
        manifest, problem = None, str(error)
    else:
        problem = f"no {MANIFEST} in {directory}"
    if manifest is None:
        print(f"cardroom verify: cannot read the dump: {problem}", file=sys.stderr)
        return 2
    if not well_formed(manifest):
        print(f"FAULT manifest: not a {DUMP_FORMAT} manifest")
        return 1
    faults = check_manifest(directory, manifest)
    present = [entry for entry in manifest["days"] if entry["file"] and (directory / entry["file"]).exists()]
    faults.update(verify_matches([directory / e["file"] for e in present], sum(e["matches"] for e in present)))
    checked = sum(entry["matches"] for entry in manifest["days"])
    if as_json:
        print(json.dumps({"ok": not faults, "matches": checked, "faults": faults}, indent=2))
    elif faults:
        print("\n".join(f"FAULT {where}: {problem}" for where, problem in faults.items()))
    else:
        print(f"OK: {checked} matches in {len(manifest['days'])} days; checked: the manifest's hash, each file's "
              f"hash, count, first and last match, and every match (hash chain, seed commitment, deal and shuffles, "
              f"every move, result)")
    return 1 if faults else 0


def well_formed(manifest) -> bool:
    """The manifest has the shape of docs/archive.md's schema where verifying reads it: a day names a file of its own
    in the dump's directory, or none."""
    if not isinstance(manifest, dict):
        return False
    days = manifest.get("days")
    return manifest.get("format") == DUMP_FORMAT and isinstance(days, list) and all(
        isinstance(entry, dict) and DAY_FIELDS <= entry.keys() and isinstance(entry["matches"], int)
        and (entry["file"] is None or isinstance(entry["file"], str) and DAY_FILE.fullmatch(entry["file"]))
        for entry in days)


def check_manifest(directory: Path, manifest: dict) -> dict[str, str]:
    """The faults of a well-formed manifest, by what they are about ("manifest", or a day's file name)."""
    faults = {}
    if manifest.get("sha256") != manifest_sha256(manifest):
        faults["manifest"] = "its sha256 is not the hash of its content"
    for entry in manifest["days"]:
        if entry.get("file"):
            problem = _check_file(directory / entry["file"], entry)
            if problem:
                faults[entry["file"]] = problem
    return faults


def _check_file(path: Path, entry: dict) -> str | None:
    if not path.exists():
        return "missing"
    if file_sha256(path) != entry["sha256"]:
        return "its sha256 is not the manifest's"
    count, first, last = 0, b"", b""
    try:
        with gzip.open(path, "rb") as lines:
            for line in lines:
                count += 1
                first, last = first or line, line
    except UNREADABLE as error:
        return f"not a whole gzip file ({error})"
    ids = [_match_id(_parsed(line)) if line else None for line in (first, last)]
    if (count, *ids) != (entry["matches"], entry["first"], entry["last"]):
        return f"it holds {count} matches from {ids[0]} to {ids[1]}, not the manifest's"
    return None


def verify_matches(files: list[Path], total: int, workers: int | None = None) -> dict[str, str]:
    """Every match of the files, each file split into a part per process (default: one per core); the faults by
    match id."""
    workers = workers or os.cpu_count() or 1
    faults: dict[str, str] = {}
    with ProcessPoolExecutor(workers) as pool, \
            tqdm(total=total, unit="match", disable=not sys.stdout.isatty()) as bar:
        parts = [pool.submit(verify_part, path, part, workers) for path in files for part in range(workers)]
        for done in as_completed(parts):
            checked, found = done.result()
            faults.update(found)
            bar.update(checked)
    return faults


def verify_part(path: Path, part: int, parts: int) -> tuple[int, dict[str, str]]:
    """Verifies every `parts`-th line of a day's file from line `part` on (a process pool's task): how many it
    checked, and the faults by match id (or by file and line, when a line names none)."""
    checked, faults = 0, {}
    try:
        with gzip.open(path, "rb") as lines:
            for number, line in enumerate(lines, start=1):
                if number % parts != part:
                    continue
                checked += 1
                where, problem = _verify_line(line)
                if problem:
                    faults[where or f"{path.name}:{number}"] = problem
    except UNREADABLE as error:
        faults[path.name] = f"not a whole gzip file ({error})"
    return checked, faults


def _verify_line(line: bytes) -> tuple[str | None, str | None]:
    """(the line's match id, what is wrong with it or None)."""
    document = _parsed(line)
    if not isinstance(document, dict):
        return None, "not an export (a JSON object)"
    if document.get("format") != EXPORT_FORMAT or document.get("complete") is not True:
        return _match_id(document), f"not the complete {EXPORT_FORMAT} export of a finished match"
    try:
        verdict = verify_export(document)
    except MALFORMED as error:  # a line whose hashes hold over data the rules cannot read: a fault, not a crash
        return _match_id(document), f"an export the verifier cannot read ({type(error).__name__}: {error})"
    return _match_id(document), None if verdict.ok else verdict.summary()


def _parsed(line: bytes):
    try:
        return json.loads(line)
    except ValueError:
        return None


def _match_id(document) -> str | None:
    found = document.get("match_id") if isinstance(document, dict) else None
    return found if isinstance(found, str) else None
