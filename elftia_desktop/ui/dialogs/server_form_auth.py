"""The server form's Authentication section (SSE/HTTP): None, a header, or OAuth sign-in.

Header: one header (``Authorization`` by default) whose value is kept in the keyring. OAuth:
the ``oauth`` object of the config; the grant, client id and secret and scopes show at once,
the rarely needed fields (token endpoint auth method, private key, client metadata URL ...)
are folded under "Advanced".
"""

from __future__ import annotations

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.core.models import McpOAuthConfig
from elftia_desktop.core.server_draft import OAuthDraft
from elftia_desktop.ui.secret_words import KEPT

MODES = [("none", "None"), ("header", "Header (API key or token)"), ("oauth", "OAuth sign-in")]
GRANTS = [
    ("authorization_code", "Sign in in the browser"),
    ("client_credentials", "Machine to machine (client credentials)"),
]
AUTH_METHODS = ["", "client_secret_basic", "client_secret_post", "none", "private_key_jwt"]
ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
AUTH_HEADER = "authorization"


def _combo(items: list[tuple[str, str]], parent: QWidget) -> QComboBox:
    combo = QComboBox(parent)
    for value, label in items:
        combo.addItem(label, value)
    return combo


def _line(placeholder: str, tip: str, parent: QWidget, secret: bool = False) -> QLineEdit:
    line = QLineEdit(parent)
    line.setPlaceholderText(placeholder)
    line.setToolTip(tip)
    if secret:
        line.setEchoMode(QLineEdit.EchoMode.Password)
    return line


class AuthSection(QWidget):
    """None / Header / OAuth, with the fields of the chosen one.

    Signals:
        changed(): any field changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._kept: McpOAuthConfig | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.mode = _combo(MODES, self)
        self.mode.setToolTip("How the app proves who you are to this server")
        column.addWidget(self.mode)
        self.header_box, self.header_form = self._box(column)
        self.header_name = _line("Authorization", "The header that carries the key", self)
        self.header_value = _line("Bearer …", f"The key or token; {KEPT}", self, secret=True)
        self.header_form.addRow("Header", self.header_name)
        self.header_form.addRow("Value", self.header_value)
        self.oauth_box, self.oauth_form = self._box(column)
        self._make_oauth_fields()
        for signal in self._signals():
            signal.connect(self._on_change)
        self._on_change()

    def _box(self, column: QVBoxLayout) -> tuple[QWidget, QFormLayout]:
        box = QWidget(self)
        form = QFormLayout(box)
        form.setContentsMargins(0, 4, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        column.addWidget(box)
        return box, form

    def _make_oauth_fields(self) -> None:
        form = self.oauth_form
        self.grant = _combo(GRANTS, self)
        self.client_id = _line("Leave empty to register automatically", "A client id registered with the server", self)
        self.client_secret = _line("Optional", f"The client's secret; {KEPT}", self, secret=True)
        self.scopes = _line("Leave empty for the ones the server asks for", "Extra scopes, separated by spaces", self)
        form.addRow("Grant", self.grant)
        form.addRow("Client ID", self.client_id)
        form.addRow("Client secret", self.client_secret)
        form.addRow("Scopes", self.scopes)
        self.fold = QToolButton(self)
        self.fold.setText("Advanced")
        self.fold.setCheckable(True)
        self.fold.setArrowType(self.fold.arrowType().RightArrow)
        self.fold.setToolButtonStyle(self.fold.toolButtonStyle().ToolButtonTextBesideIcon)
        self.fold.setAutoRaise(True)
        form.addRow(self.fold)
        self.method = QComboBox(self)
        for method in AUTH_METHODS:
            self.method.addItem(method or "Automatic", method)
        self.private_key = QPlainTextEdit(self)
        self.private_key.setPlaceholderText("-----BEGIN PRIVATE KEY----- … (private_key_jwt)")
        self.private_key.setToolTip(f"The PEM key that signs the client assertion; {KEPT}")
        self.private_key.setFixedHeight(70)
        self.algorithm = QComboBox(self)
        self.algorithm.addItems(ALGORITHMS)
        self.metadata_url = _line("https://example.com/client.json", "A client ID metadata document URL", self)
        self.issuer = _line("https://auth.example.com", "Client credentials: only this server gets them", self)
        self.port = QSpinBox(self)
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("Any free port")
        self.port.setToolTip("The loopback port of the sign-in callback, for a client registered with a fixed one")
        self.advanced: list[tuple[str, QWidget]] = [
            ("Token auth method", self.method),
            ("Private key", self.private_key),
            ("Signing algorithm", self.algorithm),
            ("Client metadata URL", self.metadata_url),
            ("Issuer", self.issuer),
            ("Callback port", self.port),
        ]
        for label, widget in self.advanced:
            form.addRow(label, widget)
        hint = QLabel(
            "Tokens are kept with your secrets, never in the config file; the servers page shows Sign in / Sign out.",
            self,
        )
        hint.setToolTip(f"Sign-in tokens are {KEPT}")
        hint.setObjectName("Muted")
        hint.setWordWrap(True)
        form.addRow(hint)
        self.fold.toggled.connect(self._on_change)

    def _signals(self) -> list[SignalInstance]:
        lines = (self.header_name, self.header_value, self.client_id, self.client_secret, self.scopes)
        lines2 = (self.metadata_url, self.issuer)
        combos = (self.mode, self.grant, self.method, self.algorithm)
        return [
            *(w.textChanged for w in (*lines, *lines2)),
            *(c.currentIndexChanged for c in combos),
            self.private_key.textChanged,
            self.port.valueChanged,
        ]

    def _on_change(self, *_args: object) -> None:
        mode = self.mode.currentData()
        self.header_box.setVisible(mode == "header")
        self.oauth_box.setVisible(mode == "oauth")
        folded = not self.fold.isChecked()
        self.fold.setArrowType(self.fold.arrowType().RightArrow if folded else self.fold.arrowType().DownArrow)
        for _label, widget in self.advanced:
            self.oauth_form.setRowVisible(widget, not folded)
        self.changed.emit()

    # -- values ----------------------------------------------------------------------------

    def header(self) -> tuple[str, str] | None:
        """``(name, value)`` of the header mode, or None."""
        if self.mode.currentData() != "header" or not self.header_value.text():
            return None
        return (self.header_name.text().strip() or "Authorization", self.header_value.text())

    def oauth(self) -> OAuthDraft | None:
        """The OAuth fields (over the saved ``oauth`` object's other keys), or None when not in OAuth mode."""
        if self.mode.currentData() != "oauth":
            return None
        return OAuthDraft(
            grant_type=str(self.grant.currentData()),
            client_id=self.client_id.text(),
            client_secret=self.client_secret.text(),
            scopes=tuple(self.scopes.text().split()),
            token_endpoint_auth_method=str(self.method.currentData()),
            private_key=self.private_key.toPlainText(),
            signing_algorithm=self.algorithm.currentText(),
            client_metadata_url=self.metadata_url.text(),
            issuer=self.issuer.text(),
            redirect_port=self.port.value(),
            kept=self._kept,
        )

    def set_config(self, headers: dict[str, str], oauth: McpOAuthConfig | None) -> dict[str, str]:
        """Show a record's auth; returns the headers left for the generic header editor."""
        rest = dict(headers)
        if oauth is not None:
            self.mode.setCurrentIndex(2)
            self._fill_oauth(OAuthDraft.of(oauth))
        else:
            key = next((k for k in rest if k.lower() == AUTH_HEADER), None)
            if key is not None:
                self.mode.setCurrentIndex(1)
                self.header_name.setText(key)
                self.header_value.setText(rest.pop(key))
        return rest

    def _fill_oauth(self, oauth: OAuthDraft) -> None:
        self._kept = oauth.kept  # its keys the form does not show (identityAssertion, a newer version's) stay
        self.grant.setCurrentIndex(max(0, self.grant.findData(oauth.grant_type)))
        self.client_id.setText(oauth.client_id)
        self.client_secret.setText(oauth.client_secret)
        self.scopes.setText(" ".join(oauth.scopes))
        self.method.setCurrentIndex(max(0, self.method.findData(oauth.token_endpoint_auth_method)))
        self.private_key.setPlainText(oauth.private_key)
        self.algorithm.setCurrentText(oauth.signing_algorithm)
        self.metadata_url.setText(oauth.client_metadata_url)
        self.issuer.setText(oauth.issuer)
        self.port.setValue(oauth.redirect_port)
        self.fold.setChecked(oauth.advanced)
