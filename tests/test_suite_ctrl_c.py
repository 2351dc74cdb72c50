"""The suite's commands get Ctrl+C even when the suite was started with it ignored, and a command that
ignores it fails its test saying so (the hang of ``logs --follow`` under a background-job runner)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import ctrl_c_as_from_a_terminal
from tests.helpers.processes import interrupt

pytestmark = [pytest.mark.timeout(120)]

if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc and POSIX signals"))

WAIT_FOR_CTRL_C = "import signal\nprint('ready', flush=True)\nsignal.pause()\n"
"""A command that runs until a signal ends it."""


@pytest.fixture
def started_ignoring_ctrl_c() -> Iterator[None]:
    """This process with SIGINT ignored, as under a runner without job control; as it was afterwards."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGINT, previous)


def start(code: str) -> subprocess.Popen[str]:
    """``python -c CODE``, its stacks dumped on SIGABRT, once it said it is ready."""
    child = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    return child


@pytest.mark.usefixtures("started_ignoring_ctrl_c")
def test_a_command_started_after_the_reset_ends_on_ctrl_c() -> None:
    ctrl_c_as_from_a_terminal()
    child = start(WAIT_FOR_CTRL_C)
    _out, err = interrupt(child)
    assert child.returncode == -signal.SIGINT and err.rstrip().endswith("KeyboardInterrupt")  # Python's Ctrl+C exit


@pytest.mark.usefixtures("started_ignoring_ctrl_c")
def test_a_command_that_inherited_ctrl_c_ignored_fails_its_test_saying_why() -> None:
    child = start(WAIT_FOR_CTRL_C)
    with pytest.raises(pytest.fail.Exception, match=r"SIGINT ignored in it\); its stderr:\n(.|\n)*Fatal Python error"):
        interrupt(child, limit=1.0)
    assert child.returncode is not None  # not left running
