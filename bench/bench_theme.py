"""Theme benchmarks: switching light → dark → light on the real window, and a dark start against a light one.

Run: ``.venv/bin/python bench/bench_theme.py`` (offscreen Qt). Figures go to the "## Theme" section of
bench/RESULTS.md.

- Switch: wall time of ``set_theme_mode`` plus the repaint of the whole main window (servers on the
  servers page, every page built), median of 7 per direction; baseline: setting a bare style sheet
  (one rule that changes the window's background) on the same window, timed the same way in the same run.
  Goal: at most 300 ms each way.
- Start: process start to the main window's first paint with the theme saved as dark, and as light
  (median of 5 each). Goal: within 10 % of each other.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from bench.results import write_section  # noqa: E402

START_PROBE = """
import os, sys, time
t0 = float(os.environ["BENCH_T0"])
from PySide6.QtCore import QEvent, QObject
from elftia_desktop.app import main
from PySide6.QtWidgets import QApplication
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and type(obj).__name__ == "MainWindow":
            print("SHOWN", time.time() - t0, flush=True)
            os._exit(0)
        return False
app = QApplication(sys.argv)
watcher = FirstPaint()
app.installEventFilter(watcher)
main(["elftia-desktop"])
"""


def start_time(theme: str, root: str) -> float:
    """Seconds from process start to the window's first paint with ``theme`` saved."""
    data_dir = Path(root) / theme  # the data folder holds window.ini too
    data_dir.mkdir(exist_ok=True)
    (data_dir / "window.ini").write_text(f"[appearance]\ntheme={theme}\n", encoding="utf-8")
    env = os.environ | {
        "BENCH_T0": repr(time.time()),
        "ELFTIA_DATA_DIR": str(data_dir),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    out = subprocess.run([sys.executable, "-c", START_PROBE], env=env, capture_output=True, text=True, timeout=120)
    line = next((x for x in out.stdout.splitlines() if x.startswith("SHOWN")), None)
    if line is None:
        raise RuntimeError(out.stderr)
    return float(line.split()[1])


def starts() -> dict[str, float]:
    """Median start to first paint, dark and light, interleaved."""
    with tempfile.TemporaryDirectory() as data_dir:
        start_time("light", data_dir)  # warm the file cache and create the configs
        start_time("dark", data_dir)
        dark: list[float] = []
        light: list[float] = []
        for _ in range(5):
            dark.append(start_time("dark", data_dir))
            light.append(start_time("light", data_dir))
    return {"dark_s": statistics.median(dark), "light_s": statistics.median(light)}


def _timed(app: object, window: object, change: Callable[[], object]) -> float:
    began = time.perf_counter()
    change()
    app.processEvents()  # type: ignore[attr-defined]
    window.grab()  # type: ignore[attr-defined]  # every widget polished and painted
    return (time.perf_counter() - began) * 1000


def switches(rounds: int = 7) -> dict[str, float]:
    """Median ms of light→dark and dark→light, and of the bare style sheet on the same window."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from elftia_desktop.ui.main_window import MainWindow
    from elftia_desktop.ui.theme import set_theme_mode
    from tests.helpers.live_router import add_servers, live_router, server_input

    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as data_dir:
        os.environ["ELFTIA_DATA_DIR"] = data_dir
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
        add_servers(*(server_input(f"bench-{i}") for i in range(8)))
        with live_router() as (router, _loop):
            set_theme_mode(app, "light")
            window = MainWindow(router, QSettings(str(Path(data_dir) / "w.ini"), QSettings.Format.IniFormat))
            window.resize(1040, 700)
            window.show()
            deadline = time.monotonic() + 60
            while len(window.servers_page.cards) < 8 and time.monotonic() < deadline:
                app.processEvents()
                time.sleep(0.005)
            figures: dict[str, list[float]] = {"to_dark": [], "to_light": [], "bare_a": [], "bare_b": []}
            for _ in range(rounds):
                figures["to_dark"].append(_timed(app, window, lambda: set_theme_mode(app, "dark")))
                figures["to_light"].append(_timed(app, window, lambda: set_theme_mode(app, "light")))
            sheet = app.styleSheet()
            for _ in range(rounds):
                figures["bare_a"].append(_timed(app, window, lambda: app.setStyleSheet("QWidget { color: #101010; }")))
                figures["bare_b"].append(_timed(app, window, lambda: app.setStyleSheet("QWidget { color: #202020; }")))
            app.setStyleSheet(sheet)
            window.close()
    return {key: statistics.median(values) for key, values in figures.items()}


def main() -> None:
    """Run both measures, print them and write the RESULTS.md section."""
    switch = switches()
    start = starts()
    bare = (switch["bare_a"] + switch["bare_b"]) / 2
    rows = [
        ("switch light → dark", switch["to_dark"], bare, switch["to_dark"] <= 300),
        ("switch dark → light", switch["to_light"], bare, switch["to_light"] <= 300),
    ]
    lines = [
        "| measure | theme ms | bare style sheet ms | ratio | goal |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {value:.1f} | {base:.1f} | {value / base:.2f} | <= 300 ms: {'met' if ok else '**not met**'} |"
            for name, value, base, ok in rows
        ),
    ]
    spread = abs(start["dark_s"] - start["light_s"]) / start["light_s"] * 100
    lines += [
        "",
        "| measure | dark | light | difference | goal |",
        "|---|---|---|---|---|",
        f"| start to first paint, median of 5 | {start['dark_s'] * 1000:.0f} ms | {start['light_s'] * 1000:.0f} ms "
        f"| {spread:.1f} % | within 10 %: {'met' if spread <= 10 else '**not met**'} |",
    ]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    body = (
        "Switch: `set_theme_mode` plus processing events and grabbing the whole window (1040×700, 8 server "
        "cards, every page built), median of 7; the baseline sets a one-rule style sheet on the same window. "
        f"Load average at the end: {load} (a shared 2-core machine: absolute times scale with it, the ratio "
        "does not).\n\n" + "\n".join(lines)
    )
    print(body)
    write_section("Theme", body, "bench/bench_theme.py")


if __name__ == "__main__":
    main()
