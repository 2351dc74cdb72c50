"""The QtWebEngine part of the MCP Apps view: its own origins, a sandboxed frame and the message relay.

Each view gets two documents served from memory under a random host: ``elftia-host://TOKEN/`` (our page,
one ``<iframe sandbox="allow-scripts">``) and ``elftia-app://TOKEN/index.html`` (the app's HTML with its
Content-Security-Policy first). The frame's origin is opaque: no storage, no cookies, no reach into our
page; the profile is off the record and reads no local files. Messages cross by ``postMessage`` to our
page, where a script in an isolated world (which the app's scripts cannot see) relays them through a
QWebChannel that exposes one object: a port carrying JSON text both ways, nothing else of Python's.
Importing this module needs PySide6-Addons (see :func:`elftia_desktop.ui.apps.webengine_available`).
"""

from __future__ import annotations

import os
import secrets

from PySide6.QtCore import QBuffer, QByteArray, QFile, QIODevice, QObject, QUrl, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEngineDownloadRequest,
    QWebEnginePage,
    QWebEnginePermission,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineSettings,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QWidget

from elftia_desktop.platform.privileges import is_root

HOST_SCHEME, APP_SCHEME = "elftia-host", "elftia-app"
_OFF = [
    "LocalContentCanAccessFileUrls",
    "LocalContentCanAccessRemoteUrls",
    "JavascriptCanOpenWindows",
    "JavascriptCanAccessClipboard",
    "JavascriptCanPaste",
    "LocalStorageEnabled",
    "PluginsEnabled",
    "AllowRunningInsecureContent",
    "NavigateOnDropEnabled",
    "ScreenCaptureEnabled",
    "WebGLEnabled",
    "PdfViewerEnabled",
]
"""Browser features an app's view never needs."""
_RELAY = """
(function () {
  var port = null, early = [];
  function view() { var frame = document.getElementById("view"); return frame && frame.contentWindow; }
  window.addEventListener("message", function (event) {
    if (!event.source || event.source !== view()) return;
    var text = JSON.stringify(event.data);
    if (port) port.receive(text); else early.push(text);
  });
  new QWebChannel(qt.webChannelTransport, function (channel) {
    port = channel.objects.port;
    port.deliver.connect(function (text) { var w = view(); if (w) w.postMessage(JSON.parse(text), "*"); });
    early.forEach(function (text) { port.receive(text); });
    early = [];
  });
})();
"""
"""Our page's side of the relay (isolated world): the frame's messages to the port and back."""


def host_page(token: str) -> str:
    """Our page: nothing but the sandboxed frame of the app, filling the view."""
    return (
        "<!doctype html><html><head>"
        "<meta http-equiv='Content-Security-Policy' "
        f"content=\"default-src 'none'; frame-src {APP_SCHEME}://{token}; style-src 'unsafe-inline'\">"
        "<style>html,body{margin:0;height:100%;overflow:hidden}"
        "iframe{border:0;width:100%;height:100%;display:block}</style></head><body>"
        f"<iframe id='view' title='MCP App' sandbox='allow-scripts' src='{APP_SCHEME}://{token}/index.html'>"
        "</iframe></body></html>"
    )


class _State:
    """The engine's one-time setup: the schemes, the profile and the served documents."""

    def __init__(self) -> None:
        self.profile: QWebEngineProfile | None = None
        self.documents: _Documents | None = None


_STATE = _State()


def prepare_engine() -> None:
    """Before the first web engine object: Chromium's flags (as root it needs no sandbox) and our schemes."""
    if _STATE.profile is not None:
        return
    if is_root():
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # Chromium refuses to run as root otherwise
    for name in (HOST_SCHEME, APP_SCHEME):
        scheme = QWebEngineUrlScheme(name.encode())
        scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
        scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme | QWebEngineUrlScheme.Flag.NoAccessAllowed)
        QWebEngineUrlScheme.registerScheme(scheme)
    profile = QWebEngineProfile(QApplication.instance())  # off the record: nothing is written to disk
    documents = _Documents(profile)
    for name in (HOST_SCHEME, APP_SCHEME):
        profile.installUrlSchemeHandler(name.encode(), documents)
    for attribute in _OFF:
        profile.settings().setAttribute(getattr(QWebEngineSettings.WebAttribute, attribute), False)
    profile.downloadRequested.connect(QWebEngineDownloadRequest.cancel)
    _STATE.profile, _STATE.documents = profile, documents


class _Documents(QWebEngineUrlSchemeHandler):
    """Serves each open view's two documents by its token; anything else is not found."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.pages: dict[str, tuple[bytes, bytes]] = {}

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        """Answer ``elftia-host://TOKEN/`` and ``elftia-app://TOKEN/index.html`` of a live view."""
        url = job.requestUrl()
        page = self.pages.get(url.host())
        host = url.scheme() == HOST_SCHEME and url.path() in ("", "/")
        app = url.scheme() == APP_SCHEME and url.path() == "/index.html"
        if page is None or not (host or app):
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        body = QBuffer(job)
        body.setData(QByteArray(page[0] if host else page[1]))
        body.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(b"text/html;charset=utf-8", body)


class _Port(QObject):
    """The one object the relay sees: JSON text in (:meth:`receive`) and out (:attr:`deliver`)."""

    deliver = Signal(str)
    received = Signal(str)

    @Slot(str)
    def receive(self, text: str) -> None:
        """A message of the app's view, as JSON text."""
        self.received.emit(text)


class _AppPage(QWebEnginePage):
    """Stays on our page; the frame stays on the app's document or the frames it declared."""

    def __init__(self, profile: QWebEngineProfile, token: str, frame_origins: list[str], parent: QObject) -> None:
        super().__init__(profile, parent)
        self._home = QUrl(f"{HOST_SCHEME}://{token}/")
        self._app = QUrl(f"{APP_SCHEME}://{token}/index.html")
        self._frames = frame_origins
        self.permissionRequested.connect(QWebEnginePermission.deny)

    def acceptNavigationRequest(
        self, url: QUrl | str, kind: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        """Our page only in the main frame; the app's document or a declared frame origin below it."""
        url = QUrl(url)
        if is_main_frame:
            return url == self._home
        return url == self._app or url.toString() == "about:srcdoc" or _matches(url, self._frames)


def _matches(origin: QUrl, allowed: list[str]) -> bool:
    """Whether ``origin``'s scheme, port and host are those of an entry (``*.`` also takes subdomains)."""
    for entry in allowed:
        pattern = QUrl(entry.replace("*.", "", 1))
        if origin.scheme() != pattern.scheme() or origin.port() != pattern.port():
            continue
        host, wanted = origin.host(), pattern.host()
        if host == wanted or ("*." in entry and host.endswith("." + wanted)):
            return True
    return False


def _relay_script() -> QWebEngineScript:
    source = QFile(":/qtwebchannel/qwebchannel.js")
    source.open(QIODevice.OpenModeFlag.ReadOnly)
    script = QWebEngineScript()
    script.setName("elftia-apps-relay")
    script.setSourceCode(bytes(source.readAll().data()).decode() + _RELAY)
    script.setWorldId(QWebEngineScript.ScriptWorldId.ApplicationWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(False)
    return script


class AppFrame(QWebEngineView):
    """One app's view: its HTML (policy included) in a sandboxed frame; :attr:`received` and :meth:`send`."""

    received = Signal(str)
    """A JSON-RPC message from the app."""

    def __init__(self, document: str, frame_origins: list[str], parent: QWidget | None = None) -> None:
        prepare_engine()
        super().__init__(parent)
        assert _STATE.profile is not None and _STATE.documents is not None
        self.token = secrets.token_hex(12)
        self._documents = _STATE.documents
        self._documents.pages[self.token] = (host_page(self.token).encode(), document.encode())
        page = _AppPage(_STATE.profile, self.token, frame_origins, self)
        self._port = _Port(page)
        self._port.received.connect(self.received)
        channel = QWebChannel(page)
        channel.registerObject("port", self._port)
        page.setWebChannel(channel, QWebEngineScript.ScriptWorldId.ApplicationWorld)
        page.scripts().insert(_relay_script())
        self.setPage(page)
        documents, token = self._documents, self.token
        self.destroyed.connect(lambda: documents.pages.pop(token, None))
        self.load(QUrl(f"{HOST_SCHEME}://{self.token}/"))

    def send(self, text: str) -> None:
        """Post a JSON-RPC message (JSON text) to the app."""
        self._port.deliver.emit(text)
