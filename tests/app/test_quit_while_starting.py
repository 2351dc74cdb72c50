"""Ctrl+C or SIGTERM while the app is still starting ends it quietly: exit 0, no traceback, nothing left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elftia_desktop.app import EarlyQuit

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def test_a_signal_while_starting_is_recorded_not_raised() -> None:
    previous = signal.getsignal(signal.SIGINT)
    try:
        early = EarlyQuit()
        os.kill(os.getpid(), signal.SIGINT)  # would be a KeyboardInterrupt here without it
        time.sleep(0)  # the handler runs between bytecodes
        assert early.requested
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0])
def test_interrupting_the_starting_app_is_quiet(tmp_path: Path, delay: float) -> None:
    env = os.environ | {
        "QT_QPA_PLATFORM": "offscreen",
        "ELFTIA_DATA_DIR": str(tmp_path),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.app"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _wait_until_it_catches_sigterm(process.pid)  # Python's own start-up is not the app's to make quiet
    time.sleep(delay)  # a moment of the start-up, not an event to wait for
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=40)
    assert process.returncode == 0, err
    assert "Traceback" not in err and "Task was destroyed" not in err, err


def _wait_until_it_catches_sigterm(pid: int) -> None:
    """Wait until the app's ``EarlyQuit`` is in place (Python catches SIGINT, never SIGTERM, by itself).

    Read from ``/proc/PID/status`` where there is one; elsewhere the test keeps its plain delay.
    """
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return
    mask = 1 << (signal.SIGTERM - 1)
    while status.exists():
        caught = next((line for line in status.read_text().splitlines() if line.startswith("SigCgt:")), "")
        if caught and int(caught.split()[1], 16) & mask:
            return
        time.sleep(0.01)
