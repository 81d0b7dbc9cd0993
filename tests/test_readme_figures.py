"""The README's figures are those of BENCHMARKS.md's latest run, so the two cannot drift apart."""

import re

from conftest import REPO

# A figure with a unit: seconds, megabytes, or a ratio.
FIGURE = re.compile(r"(?<![\w.])\d[\d.,]*\s?(?:s|MB|MiB|x)\b")


def latest_cpu_run() -> str:
    """BENCHMARKS.md's newest CPU section: sections are added at the top, below the GPU one."""
    text = (REPO / "BENCHMARKS.md").read_text()
    start = text.index("\n## CPU")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def new_column(section: str, row_start: str) -> str:
    """The ``new`` cell of the table row that starts with ``row_start``."""
    row = next(line for line in section.splitlines() if line.startswith(row_start))
    return row.split("|")[3].strip()


def test_readme_quotes_the_latest_cold_ratio_and_warm_time():
    section = latest_cpu_run()
    cold = re.search(r"\*\*([\d.]+x)\*\* ruff", new_column(section, "| cold `decouple ROOT --check`")).group(1)
    warm = new_column(section, "| warm `--check`")
    readme = " ".join((REPO / "README.md").read_text().split())
    assert f"a cold `--check` takes {cold} the time `ruff check` takes on the same files, a warm one {warm}" in readme


def test_readme_has_no_figure_that_the_latest_run_does_not_give():
    section = latest_cpu_run()
    readme = (REPO / "README.md").read_text()
    stray = [f for f in FIGURE.findall(readme) if f.replace(" ", "") not in section.replace(" ", "").replace("*", "")]
    assert stray == [], f"README figures not in BENCHMARKS.md's latest run: {stray}"


def test_the_moved_reference_quotes_no_figure_the_latest_run_does_not_give():
    """docs/cli.md and docs/how-it-works.md hold what the README held; their figures are tied too."""
    section = latest_cpu_run().replace(" ", "").replace("*", "")
    for doc in ("cli.md", "how-it-works.md"):
        text = (REPO / "docs" / doc).read_text()
        stray = [f for f in FIGURE.findall(text) if f.replace(" ", "") not in section]
        assert stray == [], f"docs/{doc} figures not in BENCHMARKS.md's latest run: {stray}"


def test_the_readme_fits_a_screen_and_links_the_reference():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 80
    assert readme.count("```sh") == 1 and "decouple --sglang --output out" in readme
    assert "decouple scan" in readme and "--diff" in readme
    for doc in ("docs/cli.md", "docs/how-it-works.md", "docs/rules.md", "docs/api.md"):
        assert doc in readme and (REPO / doc).exists()
