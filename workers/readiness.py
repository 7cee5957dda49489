"""What GET /health/ready asks of RQ: a worker beating on the bot queue and RQ's scheduler alive. Each check
returns when it passes and raises NotReady saying what is missing (a Redis error when RQ's Redis is out of reach).

A process killed with SIGKILL leaves its registration behind for a while (a worker's key lives up to its TTL,
the scheduler's lock interval + 60 s), so each check asks for a heartbeat within `within` seconds rather than
for the registration: the janitor takes a worker silent for STALL_AFTER seconds for dead, and so does this."""
from rq import Queue, SimpleWorker
from rq.exceptions import SchedulerNotFound
from rq.scheduler import RQScheduler
from rq.utils import now

from service.errors import NotReady


def bot_workers(queue: Queue, within: float):
    """Passes while an RQ worker listening on `queue` has beaten within `within` seconds."""
    def check() -> None:
        if not any(_recent(worker.last_heartbeat, within) for worker in SimpleWorker.all(queue=queue)):
            raise NotReady(f"no RQ worker on queue {queue.name} has sent a heartbeat within {within:g} s")
    return check


def scheduler(queue: Queue, within: float):
    """Passes while the RQ scheduler holding `queue`'s scheduler lock has beaten within `within` seconds."""
    def check() -> None:
        holder = queue.connection.get(RQScheduler.get_locking_key(queue.name))
        if holder is None:
            raise NotReady(f"no RQ scheduler holds the lock of queue {queue.name}")
        try:
            # redis-py types a synchronous client's answers as Awaitable[Any] | Any; RQ's client answers bytes
            scheduler_name = holder.decode()  # type: ignore[union-attr]
            last_heartbeat = RQScheduler.fetch(scheduler_name, connection=queue.connection).last_heartbeat
        except SchedulerNotFound:
            last_heartbeat = None
        if not _recent(last_heartbeat, within):
            raise NotReady(f"the RQ scheduler of queue {queue.name} has sent no heartbeat within {within:g} s")
    return check


def _recent(heartbeat, within: float) -> bool:
    return heartbeat is not None and (now() - heartbeat).total_seconds() < within
