"""Delete the widgets a test closed before the next test starts (an autouse fixture for the GUI tests).

pytest-qt closes each widget a test added and calls ``deleteLater`` on it, but a deferred delete
posted outside an event loop waits until some later test runs one (``qtbot.waitUntil``): until
then every closed window stays alive, and a theme switch or a palette change restyles thousands
of dead widgets (a test of 15 forms left about 6,000 for the next tests).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QEvent


@pytest.fixture(autouse=True)
def delete_closed_widgets() -> Iterator[None]:
    """After the test (pytest-qt has closed its widgets by then), run the deferred deletes it left."""
    yield
    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
