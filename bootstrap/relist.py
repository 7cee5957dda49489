"""`python -m bootstrap.relist`: lists every finished match among the finished matches that the streams of exports
and `cardroom dump` read (docs/archive.md), at the time it finished. A server keeps those listings from the moment it
runs a version that has them; this brings in the matches that finished before. Run it once after upgrading, against
the same REDIS_URL (or REDIS_CLUSTER_NODES) as the server; running it again changes nothing."""
from bootstrap import build_services, settings


def main() -> None:
    listed = build_services(settings()).matches.list_finished_matches()
    print(f"{listed} finished matches listed")


if __name__ == "__main__":
    main()
