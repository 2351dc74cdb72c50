"""One app per data folder: a second start hands its arguments to the running window over a local socket.

The first start listens on a ``QLocalServer`` named after the user and the data folder (so two
data folders, such as a test run's, are two apps). A later start connects, sends its arguments
(JSON, one line) and exits; the running app raises its window and handles them (an ``elftia://``
link opens the add form). The socket is a Unix domain socket (a named pipe on Windows) that only
the user can open (``UserAccessOption``); nothing listens on a network port.

On macOS a link opened while the app runs arrives as a ``QFileOpenEvent`` (the Apple event the
URL scheme of ``Info.plist`` produces) rather than as a second start; it is handed on the same way.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import sys
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtNetwork import QLocalServer, QLocalSocket

CONNECT_TIMEOUT_MS = 500
"""How long a second start waits for the running app to accept (it answers in a few ms)."""
WRITE_TIMEOUT_MS = 2000
MAX_MESSAGE_BYTES = 256 * 1024


def instance_name(data_folder: str) -> str:
    """The socket name for this user and data folder: short and safe on every platform."""
    digest = hashlib.sha256(f"{getpass.getuser()}\0{data_folder}".encode()).hexdigest()[:16]
    return f"elftia-desktop-{digest}"


class SingleInstance(QObject):
    """Hands arguments to a running app, or listens for them as the running app.

    Signals:
        argumentsReceived(list): the arguments (program name left out) a later start handed over.
    """

    argumentsReceived = Signal(list)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server: QLocalServer | None = None
        self._readers: set[_MessageReader] = set()

    def hand_over(self, arguments: list[str]) -> bool:
        """Send ``arguments`` to a running app; ``False`` when none is running (then call :meth:`listen`)."""
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
            return False
        socket.write(json.dumps(arguments).encode("utf-8") + b"\n")
        socket.flush()
        delivered = socket.waitForBytesWritten(WRITE_TIMEOUT_MS) or socket.bytesToWrite() == 0
        socket.disconnectFromServer()
        if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
            socket.waitForDisconnected(WRITE_TIMEOUT_MS)
        return delivered

    def listen(self, watch_file_open: bool = sys.platform == "darwin") -> bool:
        """Accept later starts; a socket left behind by a crashed run is removed first. ``False`` on failure.

        ``watch_file_open`` also hands on the URLs the system opens with the running app (macOS only
        by default: the filter sees every event of the app).
        """
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            QLocalServer.removeServer(self.name)  # only reached when no running app answered hand_over
            if not server.listen(self.name):
                return False
        server.newConnection.connect(self._accept)
        self.server = server
        app = QCoreApplication.instance()
        if watch_file_open and app is not None:
            app.installEventFilter(self)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Hand on a URL the system opens with this app (macOS: a link clicked while it runs)."""
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent):
            url = event.url().toString() or event.file()
            if url:
                self.argumentsReceived.emit([url])
                return True
        return False

    def _accept(self) -> None:
        assert self.server is not None
        while (socket := self.server.nextPendingConnection()) is not None:
            reader = _MessageReader(socket, self._deliver, self._readers.discard)
            self._readers.add(reader)
            socket.readyRead.connect(reader.read)
            socket.disconnected.connect(socket.deleteLater)
            reader.read()  # what arrived with the connection

    def _deliver(self, data: bytes) -> None:
        try:
            arguments = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return  # not one of our starts: ignore it
        if isinstance(arguments, list) and all(isinstance(a, str) for a in arguments):
            self.argumentsReceived.emit(arguments)


class _MessageReader:
    """Collects one newline-terminated message from a connected later start."""

    def __init__(
        self, socket: QLocalSocket, deliver: Callable[[bytes], None], done: Callable[[_MessageReader], None]
    ) -> None:
        self.socket = socket
        self.deliver = deliver
        self.done = done
        self.buffer = bytearray()

    def read(self) -> None:
        """Take what arrived; deliver the message once its newline is in, drop an oversized one."""
        self.buffer.extend(bytes(self.socket.readAll().data()))
        if len(self.buffer) > MAX_MESSAGE_BYTES:
            self._close(abort=True)
        elif self.buffer.endswith(b"\n"):
            self.deliver(bytes(self.buffer))
            self._close(abort=False)

    def _close(self, abort: bool) -> None:
        self.socket.readyRead.disconnect(self.read)
        if abort:
            self.socket.abort()
        else:
            self.socket.disconnectFromServer()
        self.done(self)
