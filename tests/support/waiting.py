"""Waiting for something a test caused to come true, in another process or thread."""
import time

# A bound on waits for what takes a second or two when the machine is idle: it only ends a test that would never
# finish, so it is generous enough for a loaded CI machine (timings are measured in bench/, not here).
GENEROUS_SECONDS = 120


def wait_for(condition, what: str, seconds: float = GENEROUS_SECONDS):
    """Polls `condition` until it returns something true, and returns that; fails, naming `what`, if it never
    does within `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.2)
    return found
