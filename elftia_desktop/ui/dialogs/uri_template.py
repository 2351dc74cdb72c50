"""RFC 6570 URI templates as resource templates use them: the variables, and filling them in.

Covers levels 1–3 (``{var}``, ``{+var}``, ``{#var}``, ``{.var}``, ``{/var}``, ``{;var}``,
``{?a,b}``, ``{&a}``) with ``:n`` prefixes and ``*`` explode markers read as plain names.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^}]+)\}")
_OPERATORS = {
    "": ("", ",", False),
    "+": ("", ",", False),
    "#": ("#", ",", False),
    ".": (".", ".", False),
    "/": ("/", "/", False),
    ";": (";", ";", True),
    "?": ("?", "&", True),
    "&": ("&", "&", True),
}


def _names(spec: str) -> list[str]:
    return [part.split(":")[0].rstrip("*").strip() for part in spec.split(",") if part.strip()]


def template_variables(template: str) -> list[str]:
    """The variable names of ``template`` in order, each once."""
    names: list[str] = []
    for match in _EXPRESSION.finditer(template):
        for name in _names(match.group(2)):
            if name not in names:
                names.append(name)
    return names


def expand(template: str, values: dict[str, str]) -> str:
    """``template`` with ``values`` filled in (unset variables are left out, as RFC 6570 says)."""

    def one(match: re.Match[str]) -> str:
        """The expansion of one ``{...}`` expression."""
        operator = match.group(1)
        first, separator, named = _OPERATORS[operator]
        safe = ":/?#[]@!$&'()*+,;=" if operator in ("+", "#") else ""
        parts = []
        for name in _names(match.group(2)):
            if name not in values:
                continue
            value = quote(values[name], safe=safe)
            parts.append(f"{name}={value}" if named else value)
        return first + separator.join(parts) if parts else ""

    return _EXPRESSION.sub(one, template)
