"""The terminal's answer to a URL-mode elicitation: the domain first and loud, opened by nobody but the user.

A server may ask the user to open an address (a sign-in, a payment). The prompt names the
server and puts the address's domain on a line of its own before the full address, warns when
it is not HTTPS, and asks y/N; nothing is opened by Elftia (the user opens the printed address).
Without a terminal, or with ``--elicit accept-defaults`` (which answers forms only), it declines.
"""

from __future__ import annotations

import sys

from elftia_desktop.core.text_rules import visible
from elftia_desktop.core.url_elicitation import UrlQuestion


def ask_url(server: str, message: str, question: UrlQuestion) -> str:
    """Ask on the terminal (blocking; run in a thread): ``accept`` or ``decline``."""
    err = sys.stderr
    print(f"{visible(server)} asks you to open an address: {visible(message)}", file=err)
    print(f"  DOMAIN: {visible(question.domain) or '(none)'}", file=err)
    print(f"  address: {visible(question.url)}", file=err)
    if not question.https:
        print("  warning: not an https:// address; what you type there can be read on the way", file=err)
    answer = input("Will you open it yourself? Elftia opens nothing. [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        return "decline"
    print(f"Open this address in your browser: {visible(question.url)}", file=err)
    return "accept"


def decline_unattended(server: str, question: UrlQuestion) -> str:
    """Say on stderr that a URL question was declined (no terminal, or answering forms by defaults)."""
    print(
        f"{visible(server)} asked to have {visible(question.domain)} opened ({visible(question.url)}); "
        "declined: a URL question needs you at a terminal",
        file=sys.stderr,
    )
    return "decline"
