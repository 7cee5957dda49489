"""The source of another commit, for a bench that measures before (a commit) and after (the working tree) side
by side: a process started with PYTHONPATH=<tree>, from a folder other than the repository's root, imports that
tree's packages (the path comes before the virtualenv's editable finder)."""
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


@contextmanager
def source_tree(revision: str):
    """The folder holding `revision`'s files ("." = the working tree), extracted with `git archive`, which
    changes nothing in the repository."""
    if revision == ".":
        yield REPOSITORY
        return
    with tempfile.TemporaryDirectory(prefix="cardroom-tree-") as folder:
        archive = subprocess.run(["git", "archive", revision], cwd=REPOSITORY, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)
