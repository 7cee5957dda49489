"""`python -m bootstrap.worker`: one RQ worker on the bot queue, with the service wired in."""
from rq import Worker

from bootstrap import build_match_service, build_queue, settings
from workers import jobs


def main() -> None:
    config = settings()
    queue = build_queue(config)
    jobs.configure(build_match_service(config))
    Worker([queue], connection=queue.connection).work(with_scheduler=True)


if __name__ == "__main__":
    main()
