"""The Skills tab of the discover panel (Skills over MCP, SEP-2640).

Each skill the server lists, with its files under it; a skill changed (or new) since it was
accepted is marked held back and has an Accept button. Read shows the chosen file (the skill's
``SKILL.md`` when the skill itself is chosen) after its size and sha256 digest were checked
against the skill's entry; a held-back skill's files are not read. A server that does not declare
the extension gets one line saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QWidget

from elftia_desktop.bridge.results_explore import ResourceContent, ResourceRead, SkillView
from elftia_desktop.ui.dialogs.explore_pane import DetailPane, explore_layout, show_list_error
from elftia_desktop.ui.widgets.inline_code import set_description

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter

ROLE = Qt.ItemDataRole.UserRole
HELD = "held back"


class SkillsPanel(QWidget):
    """A server's skills in a tree; the chosen file can be read, a held-back skill accepted.

    Signals:
        listed(int): the skills were listed (how many).
    """

    listed = Signal(int)

    def __init__(self, router: McpRouter, server_id: str, parent: QWidget | None = None) -> None:
        """An empty tab for ``server_id``'s skills (filled by :meth:`refresh`)."""
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.skills: list[SkillView] = []
        self.chosen: tuple[SkillView, str] | None = None
        """The chosen skill and the URI of the chosen file."""
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Name", "URI", "Status"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long URI shortens; Status stays in view
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(lambda item, _old: self._chosen(item))
        self.accept_button = QPushButton("&Accept skill", self)
        self.accept_button.setToolTip("Accept this skill as the server lists it now (it is then no longer held back)")
        self.accept_button.setAutoDefault(False)
        self.accept_button.clicked.connect(self.accept)
        self.note = QLabel("", self)
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # the server's words are never markup
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        extra = QWidget(self)
        row = QHBoxLayout(extra)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.note, 1)
        row.addWidget(self.accept_button)
        self.detail = DetailPane(
            self,
            choose="Choose a skill or one of its files.",
            action=("&Read", "Read the chosen file, checked against the skill's sha256 digests", self.read),
            empty_result="The file appears here once its digest matched.",
            extra=extra,
        )
        self.description, self.read_button = self.detail.description, self.detail.button
        self.status, self.result_view = self.detail.status, self.detail.result_view
        self.error = explore_layout(self, self.tree, self.detail, (3, 4))
        self.accept_button.hide()

    def refresh(self, declared: bool = True) -> None:
        """Ask the server for its skills (compared with the pins on the way); not ``declared``: say why none."""
        if not declared:
            self.set_skills([])
            show_list_error(self.error, "")
            self.description.setText("This server does not declare the skills extension (Skills over MCP).")
            return
        self._router.skills.skills(self.server_id).then(self, self.set_skills, self._list_failed)

    def set_skills(self, skills: list[SkillView]) -> None:
        """Show the listed skills, each with its files."""
        show_list_error(self.error, "")
        self.skills = skills
        self.tree.clear()
        for skill in skills:
            status = HELD if skill.held else ("dynamic: no digests" if skill.dynamic else "accepted")
            item = QTreeWidgetItem(self.tree, [skill.name, skill.uri, status])
            item.setData(0, ROLE, (skill, skill.uri))
            item.setToolTip(1, skill.uri)
            if skill.held:
                item.setToolTip(2, f"{skill.status.capitalize()} since it was accepted: Accept it to read its files")
            for file in skill.files or ():
                child = QTreeWidgetItem(item, [file.uri.rsplit("/", 1)[-1], file.uri, f"{file.size} bytes"])
                child.setData(0, ROLE, (skill, file.uri))
                child.setToolTip(1, f"{file.uri}\n{file.digest}")
        self.tree.expandAll()
        self._chosen(self.tree.currentItem())
        self.listed.emit(len(skills))

    def _list_failed(self, error: BridgeError) -> None:
        show_list_error(self.error, error.message)

    def select(self, uri: str) -> None:
        """Choose the skill or file with this URI."""
        found = self.tree.findItems(uri, Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive, 1)
        if found:
            self.tree.setCurrentItem(found[0])

    def _chosen(self, item: QTreeWidgetItem | None) -> None:
        self.chosen = item.data(0, ROLE) if item is not None else None
        self.detail.set_form(None)
        held = self.chosen is not None and self.chosen[0].held
        self.read_button.setEnabled(self.chosen is not None and not held)
        self.accept_button.setVisible(held)
        if self.chosen is None:
            self.note.setText("")
            return
        skill = self.chosen[0]
        set_description(self.description, skill.description or "No description.")
        lint = "".join(f"\nLint {f.rule}: {f.detail}" for f in skill.findings)
        if held:
            self.note.setText(
                f"{skill.status.capitalize()} since it was accepted: held back, its files are not read.{lint}"
            )
        else:
            self.note.setText(f"From this server, as {skill.uri}{lint}")

    def read(self) -> None:
        """Read the chosen file through its skill's entry."""
        if self.chosen is None:
            return
        skill, uri = self.chosen
        self.detail.begin("Reading and checking the digest…")
        file_uri = None if uri == skill.uri else uri
        self._router.skills.read(self.server_id, skill.uri, file_uri).then(self, self._shown, self._failed)

    def accept(self) -> None:
        """Accept the chosen held-back skill, then list again."""
        if self.chosen is None:
            return
        self.accept_button.setEnabled(False)
        self._router.skills.accept(self.server_id, self.chosen[0].uri).then(self, self._accepted, self._failed)

    def _accepted(self, _uris: list[str]) -> None:
        self.accept_button.setEnabled(True)
        uri = self.chosen[1] if self.chosen is not None else ""
        self._router.skills.skills(self.server_id).then(self, lambda s: self._relisted(s, uri), self._list_failed)

    def _relisted(self, skills: list[SkillView], uri: str) -> None:
        self.set_skills(skills)
        self.select(uri)

    def _shown(self, text: str) -> None:
        uri = self.chosen[1] if self.chosen is not None else ""
        content = ResourceContent(uri=uri, mime_type="text/markdown", text=text, blob=None, meta={})
        self.result_view.show_contents(
            ResourceRead((content,), {"contents": [content.as_json()]}), self.detail.finish()
        )

    def _failed(self, error: BridgeError) -> None:
        self.accept_button.setEnabled(True)
        self.detail.fail(error)
