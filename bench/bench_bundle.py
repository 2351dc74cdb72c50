"""The packaged app: start to first paint, frozen against the source checkout, and the bundle's size.

Run: ``.venv/bin/python bench/bench_bundle.py [--write] [BUNDLE]`` after ``python3 dev.py package``
(BUNDLE defaults to ``dist/elftia-desktop``). Offscreen Qt.

- Start-up: process start to the main window's first paint, as the app reports it through its
  ``ELFTIA_PROBE`` file; one warm-up run each, then the median of 5, the two taking turns so that
  both see the same load, each on its own data folder.
  Frozen: ``dist/elftia-desktop/elftia-desktop``; baseline: the source checkout's
  ``python -m elftia_desktop.app`` in this venv, measured in the same run.
  Goals: frozen <= 1.0 s and <= 1.5x the source run.
- Size: the bundle folder on disk (goal <= 450 MB since it carries QtWebEngine, issue 34) and the tar.gz next to it.

``--write`` replaces the "## App bundle" section of bench/RESULTS.md.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results import write_section  # noqa: E402
from elftia_desktop import __version__  # noqa: E402

RUNS = 5


def first_paint(command: list[str], data: Path) -> float:
    """Seconds from starting ``command`` to its window's first paint; the app is then told to quit."""
    probe = data / "probe.jsonl"
    probe.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ELFTIA_")}
    env |= {"ELFTIA_DATA_DIR": str(data), "ELFTIA_PROBE": str(probe), "QT_QPA_PLATFORM": "offscreen"}
    started = time.time()
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = probe.read_text().splitlines() if probe.exists() else []
            shown = [json.loads(line) for line in lines if '"shown"' in line]
            if shown:
                break
            time.sleep(0.01)
        else:
            raise SystemExit(f"{command[0]} did not paint its window within 60 s")
        probe.with_name(probe.name + ".cmd").write_text("quit\n")
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return float(shown[0]["time"]) - started


def interleaved_starts(commands: list[list[str]]) -> list[list[float]]:
    """Every run of :func:`first_paint` per command: one warm-up each, then the commands taking turns.

    Taking turns puts the frozen and the source runs under the same load (the machine is shared).
    Each command keeps its own data folder.
    """
    with tempfile.TemporaryDirectory(prefix="elftia-bench-") as folder:
        folders = [Path(folder) / str(index) for index in range(len(commands))]
        for command, data in zip(commands, folders, strict=True):
            data.mkdir()
            first_paint(command, data)  # warm-up: seeds the data folder, fills the page cache
        runs: list[list[float]] = [[] for _ in commands]
        for _ in range(RUNS):
            for index, (command, data) in enumerate(zip(commands, folders, strict=True)):
                runs[index].append(first_paint(command, data))
    return runs


def folder_size(folder: Path) -> int:
    """Bytes on disk of every file under ``folder`` (symlinks not followed)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def runs(values: list[float]) -> str:
    """The runs, comma-separated, in seconds."""
    return ", ".join(f"{v:.2f}" for v in values)


def main(argv: list[str]) -> int:
    """Measure, print, and with ``--write`` record the results."""
    args = [a for a in argv if a != "--write"]
    bundle = Path(args[0]).resolve() if args else ROOT / "dist" / "elftia-desktop"
    if not (bundle / "elftia-desktop").is_file():
        print(f"no bundle at {bundle}: build it with 'python3 dev.py package'", file=sys.stderr)
        return 2
    frozen_runs, source_runs = interleaved_starts(
        [[str(bundle / "elftia-desktop")], [sys.executable, "-m", "elftia_desktop.app"]]
    )
    frozen, source = statistics.median(frozen_runs), statistics.median(source_runs)
    size = folder_size(bundle) / 1e6
    tarballs = sorted(bundle.parent.glob(f"elftia-desktop-{__version__}-*.tar.gz"))
    packed = f"{tarballs[0].stat().st_size / 1e6:.0f} MB ({tarballs[0].name})" if tarballs else "(no tar.gz)"
    ratio = frozen / source
    verdict = f"<= 1.0 s: {'ok' if frozen <= 1.0 else 'MISSED'}; <= 1.5x: {'ok' if ratio <= 1.5 else 'MISSED'}"
    frozen_cell = f"{frozen:.2f} [{runs(frozen_runs)}]"
    source_cell = f"{source:.2f} [{runs(source_runs)}]"

    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    body = f"""
Start to first paint, offscreen, warm, median of {RUNS} (every run in brackets); size on disk.
Load average when the run ended: {load} on {os.cpu_count()} CPUs (other engineers' tests share them).

| measure | frozen bundle | source checkout (baseline) | ratio | goal |
|---|---|---|---|---|
| start to first paint (s) | {frozen_cell} | {source_cell} | {ratio:.2f} | {verdict} |
| bundle folder on disk (MB) | {size:.0f} | | | <= 450: {"ok" if size <= 450 else "MISSED"} |
| tar.gz | {packed} | | | |
"""
    print(body)
    if "--write" in argv:
        write_section("App bundle", body, "bench/bench_bundle.py --write")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
