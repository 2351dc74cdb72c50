"""Showing a person the authorization URL: printed on its own line, and the browser where there is a display.

``console_prompt`` is the CLI's sign-in prompt. ``open_in_browser`` runs ``webbrowser.open`` in a
worker thread, so the service loop never waits on the browser starting.
"""

from __future__ import annotations

import asyncio
import os
import sys
import webbrowser
from typing import TextIO

from elftia_desktop.connections.oauth_gate import SignInPrompt
from elftia_desktop.core.models import McpServerRecord


def has_display() -> bool:
    """True where a browser can open: macOS and Windows, or a Linux/BSD session with X11 or Wayland."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def open_in_browser(url: str) -> bool:
    """Open ``url`` in the default browser (in a thread); False when it could not."""
    if not has_display():
        return False
    try:
        return await asyncio.to_thread(webbrowser.open, url)
    except webbrowser.Error:
        return False


def console_prompt(stream: TextIO | None = None, browser: bool = True) -> SignInPrompt:
    """A prompt that prints the URL on its own line to ``stream`` (stderr) and opens the browser unless told not to."""

    async def prompt(record: McpServerRecord, url: str) -> None:
        """Print the URL and open it in a browser."""
        out = stream or sys.stderr
        print(f"Sign in to {record.name}: open this address in a browser:", file=out)
        print(url, file=out, flush=True)
        opened = browser and await open_in_browser(url)
        print(
            ("The browser was opened. " if opened else "") + "Waiting for the sign-in to finish (up to 5 minutes)…",
            file=out,
            flush=True,
        )

    return prompt
