"""Widgets for MCP content: text, images, audio, embedded resources, resource links, JSON trees.

The blocks arrive as JSON dicts with the protocol's field names (``type``, ``text``, ``data``,
``mimeType``, ``resource``, ``uri`` ...). Audio cannot play here (PySide6-Essentials has no
QtMultimedia), so it is saved to a temporary file off the UI thread and opened with the
system's player.
"""

from __future__ import annotations

import base64
import binascii
import json
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

MAX_IMAGE_WIDTH = 480
AUDIO_SUFFIXES = {"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg"}


def decode_base64(data: str) -> bytes | None:
    """The bytes of a base64 string, or None when it is not base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def _muted(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName("Muted")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def text_widget(text: str, parent: QWidget) -> QWidget:
    """Selectable text; long text scrolls (at most about 14 lines high)."""
    box = QPlainTextEdit(text, parent)
    box.setReadOnly(True)
    box.setObjectName("ResultText")
    lines = max(1, min(text.count("\n") + 1 + len(text) // 90, 14))
    box.setFixedHeight(lines * box.fontMetrics().lineSpacing() + 14)
    return box


def image_widget(data: str, mime: str, parent: QWidget) -> QWidget:
    """The image, scaled down to fit; a clear note when it cannot be decoded."""
    raw = decode_base64(data)
    image = QImage()
    if raw is None or not image.loadFromData(raw):
        return _muted(f"An image ({mime}) that could not be decoded.", parent)
    box = QWidget(parent)
    box.setObjectName("ImageBlock")
    label = QLabel(box)
    label.setObjectName("ResultImage")
    pixmap = QPixmap.fromImage(image)
    if pixmap.width() > MAX_IMAGE_WIDTH:
        pixmap = pixmap.scaledToWidth(MAX_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
    label.setPixmap(pixmap)
    info = f"{mime} · {image.width()}×{image.height()} px · {len(raw):,} bytes"
    label.setToolTip(info)
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    column.addWidget(label, 0, Qt.AlignmentFlag.AlignLeft)
    column.addWidget(_muted(info, box))
    return box


class _Saver(QObject):
    """Writes a blob to a temporary file in a worker thread, then reports on the UI thread.

    Signals:
        saved(str): the file's path.
        failed(str): why it could not be written.
    """

    saved = Signal(str)
    failed = Signal(str)

    def save(self, raw: bytes, suffix: str) -> None:
        """Start writing ``raw``."""

        def write() -> None:
            """Write the audio to a temporary file (in a worker thread)."""
            try:
                with tempfile.NamedTemporaryFile(prefix="elftia-audio-", suffix=suffix, delete=False) as out:
                    out.write(raw)
                self.saved.emit(out.name)
            except OSError as exc:
                self.failed.emit(str(exc))

        threading.Thread(target=write, name="save-audio", daemon=True).start()


class AudioWidget(QFrame):
    """Audio: its type and size, and a button that saves it and opens the system's player."""

    def __init__(self, data: str, mime: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.raw = decode_base64(data)
        self.mime = mime
        self.path: str | None = None
        """Where the audio was saved (None until Save and open)."""
        self.opener: Callable[[QUrl], object] = QDesktopServices.openUrl
        """Opens the saved file (the system's player)."""
        size = f"{len(self.raw):,} bytes" if self.raw is not None else "not decodable"
        self.info = _muted(f"Audio ({mime}, {size})", self)
        self.open_button = QPushButton("Save and open…", self)
        self.open_button.setToolTip("Save the audio to a temporary file and open it with the system's player")
        self.open_button.setEnabled(self.raw is not None)
        self.open_button.clicked.connect(self._save)
        self._saver = _Saver(self)
        self._saver.saved.connect(self._opened)
        self._saver.failed.connect(lambda why: self.info.setText(f"Could not save the audio: {why}"))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.info, 1)
        row.addWidget(self.open_button)

    def _save(self) -> None:
        if self.raw is not None:
            self.open_button.setEnabled(False)
            self._saver.save(self.raw, AUDIO_SUFFIXES.get(self.mime, ".bin"))

    def _opened(self, path: str) -> None:
        self.path = path
        self.open_button.setEnabled(True)
        self.info.setText(f"Audio ({self.mime}) saved to {path}")
        self.opener(QUrl.fromLocalFile(path))


def json_tree(value: Any, parent: QWidget) -> QTreeWidget:
    """A tree of a JSON value (objects and arrays fold)."""
    tree = QTreeWidget(parent)
    tree.setObjectName("ResultTree")
    tree.setHeaderLabels(["Key", "Value"])
    tree.setAlternatingRowColors(True)

    def add(node: QTreeWidgetItem | QTreeWidget, key: str, item: Any) -> None:
        """Add ``item`` under ``node``, with its children."""
        if isinstance(item, dict):
            child = QTreeWidgetItem(node, [key, f"{{{len(item)}}}"])
            for k, v in item.items():
                add(child, str(k), v)
        elif isinstance(item, list):
            child = QTreeWidgetItem(node, [key, f"[{len(item)}]"])
            for index, v in enumerate(item):
                add(child, f"[{index}]", v)
        else:
            QTreeWidgetItem(node, [key, json.dumps(item, ensure_ascii=False)])

    if isinstance(value, dict):
        for k, v in value.items():
            add(tree, str(k), v)
    else:
        add(tree, "value", value)
    tree.expandAll()
    tree.resizeColumnToContents(0)
    rows = min(max(_count(tree), 1), 12)
    tree.setFixedHeight(rows * (tree.fontMetrics().lineSpacing() + 6) + 30)
    return tree


def _count(tree: QTreeWidget) -> int:
    count = 0
    iterator = QTreeWidgetItemIterator(tree)
    while iterator.value() is not None:
        count += 1
        iterator += 1
    return count


def resource_contents_widget(contents: dict[str, Any], parent: QWidget) -> QWidget:
    """One ``contents`` entry of a resource: its URI and type, then a text or image preview."""
    box = QFrame(parent)
    box.setObjectName("ResourceBox")
    layout = QVBoxLayout(box)
    layout.setContentsMargins(8, 6, 8, 6)
    mime = str(contents.get("mimeType") or "")
    layout.addWidget(_muted(f"{contents.get('uri', '')}" + (f"  ·  {mime}" if mime else ""), box))
    if "text" in contents:
        layout.addWidget(text_widget(str(contents["text"]), box))
    elif "blob" in contents:
        blob = str(contents["blob"])
        if mime.startswith("image/"):
            layout.addWidget(image_widget(blob, mime, box))
        elif mime.startswith("audio/"):
            layout.addWidget(AudioWidget(blob, mime, box))
        else:
            raw = decode_base64(blob)
            layout.addWidget(_muted(f"Binary content, {len(raw or b''):,} bytes.", box))
    return box


def block_widget(block: dict[str, Any], parent: QWidget) -> QWidget:
    """The widget for one content block of a tool result or prompt message."""
    kind = block.get("type")
    mime = str(block.get("mimeType") or "")
    if kind == "text":
        return text_widget(str(block.get("text", "")), parent)
    if kind == "image":
        return image_widget(str(block.get("data", "")), mime or "image", parent)
    if kind == "audio":
        return AudioWidget(str(block.get("data", "")), mime or "audio", parent)
    if kind == "resource" and isinstance(block.get("resource"), dict):
        return resource_contents_widget(block["resource"], parent)
    if kind == "resource_link":
        return ResourceLinkWidget(block, parent)
    return json_tree(block, parent)


class ResourceLinkWidget(QFrame):
    """A link to a resource of the server, with Read.

    Signals:
        readRequested(str): the link's URI.
    """

    readRequested = Signal(str)

    def __init__(self, block: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ResourceLink")
        self.uri = str(block.get("uri", ""))
        mime = str(block.get("mimeType") or "")
        name = block.get("title") or block.get("name") or ""
        self.label = _muted(f"🔗 {name}  {self.uri}" + (f"  ·  {mime}" if mime else ""), self)
        self.label.setToolTip(str(block.get("description") or "A link to a resource of the server"))
        self.read_button = QPushButton("Read", self)
        self.read_button.setToolTip(f"Read {self.uri} from the server")
        self.read_button.clicked.connect(lambda: self.readRequested.emit(self.uri))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.read_button)


__all__ = ["AudioWidget", "block_widget", "json_tree", "resource_contents_widget"]
