import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="run the long property-based and release-matrix tests")
    parser.addoption("--update-snapshots", action="store_true", help="rewrite fixtures/*/expected from the tool's output")


def run_cli(*args, cwd=None, env=None):
    """Run the console entry point in a fresh interpreter: exit code, stdout, stderr."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env.pop("DECOUPLE_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "codemod", *map(str, args)], capture_output=True, text=True, cwd=cwd, env=full_env)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def load_report():
    def load(out_dir):
        return json.loads((Path(out_dir) / "report.json").read_text())

    return load


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path under root -> text) as UTF-8, line endings as given."""
    for rel, text in files.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    return Path(root)


def on_a_terminal(cmd: list, **popen) -> tuple[int, str]:
    """Run ``cmd`` with its stdin and stderr on a pseudo-terminal (stdout discarded):
    (its exit code, all it wrote there)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, **popen)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal's other side closed: the run is over
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return proc.wait(timeout=120), seen.decode()


def copy_tree(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def tree_hashes(root: Path) -> dict:
    import hashlib

    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(Path(root).rglob("*")) if p.is_file() and "__pycache__" not in p.parts
    }


# report.md for a run of a few classes reads as a pull request's description, on one screen: this
# many lines at most (the rest is report.json's).
REPORT_LINES = 50


def paragraphs(md: str) -> list[str]:
    """Each paragraph, list item and table row of a markdown text (not the table rules), for
    the tests that report.md says each thing once."""
    out = []
    for block in md.split("\n\n"):
        lines = block.splitlines()
        if any(line.startswith(("- ", "| ", "  - ")) for line in lines):
            out += [line.strip() for line in lines if line.strip() and not line.startswith("|---")]
        elif block.strip():
            out.append(block.strip())
    return out
