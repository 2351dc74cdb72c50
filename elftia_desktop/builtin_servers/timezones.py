"""Time-zone helpers for the clock server: look-up, loose name resolution, parsing and month arithmetic."""

from __future__ import annotations

import calendar
import difflib
import functools
import os
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from mcp.server.mcpserver.exceptions import ToolError

_ALIASES = {"utc": "UTC", "gmt": "UTC", "z": "UTC", "zulu": "UTC", "universal": "UTC"}


@functools.cache
def all_zones() -> tuple[str, ...]:
    """Every IANA zone name known to this system, sorted (legacy ``posix/`` and ``right/`` copies left out)."""
    return tuple(sorted(z for z in available_timezones() if not z.startswith(("posix/", "right/"))))


def zone(name: str) -> ZoneInfo:
    """The zone called ``name``; a :class:`ToolError` that suggests names when there is none."""
    key = _ALIASES.get(name.strip().lower(), name.strip())
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        best, candidates = resolve(name)
        hint = f" Did you mean {', '.join(([best] if best else []) + candidates[:3])}?" if best or candidates else ""
        raise ToolError(f"unknown time zone {name!r}: use an IANA name such as 'Europe/Paris'.{hint}") from exc


def local_zone_name() -> str:
    """This computer's IANA zone (``TZ``, then ``/etc/localtime``, then ``/etc/timezone``), else ``UTC``."""
    env = os.environ.get("TZ", "").lstrip(":")
    if env and env in all_zones():
        return env
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        target = str(localtime.resolve())
        marker = "zoneinfo/"
        if marker in target:
            candidate = target.split(marker, 1)[1]
            if candidate in all_zones():
                return candidate
    try:
        candidate = Path("/etc/timezone").read_text(encoding="utf-8").strip()
    except OSError:
        candidate = ""
    return candidate if candidate in all_zones() else "UTC"


def format_offset(offset: timedelta) -> str:
    """``+09:00`` / ``-05:30`` for a UTC offset."""
    total = int(offset.total_seconds())
    sign = "-" if total < 0 else "+"
    total = abs(total)
    return f"{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"


def search_zones(query: str) -> list[str]:
    """Zones whose name contains ``query`` (case-insensitive; spaces match ``_``)."""
    needle = query.strip().lower().replace(" ", "_")
    return [z for z in all_zones() if needle in z.lower()]


def resolve(name: str) -> tuple[str | None, list[str]]:
    """The zone a loose ``name`` means, and other candidates (best first)."""
    needle = name.strip().lower().replace(" ", "_")
    if not needle:
        return None, []
    if needle in _ALIASES:
        return _ALIASES[needle], []
    zones = all_zones()
    exact = [z for z in zones if z.lower() == needle]
    if exact:
        return exact[0], []
    by_city = [z for z in zones if z.lower().rsplit("/", 1)[-1] == needle]
    if by_city:
        return by_city[0], by_city[1:]
    partial = [z for z in zones if needle in z.lower()]
    if partial:
        return (partial[0] if len(partial) == 1 else None), partial[:10]
    cities = {z.lower().rsplit("/", 1)[-1]: z for z in zones}
    close = difflib.get_close_matches(needle, list(cities), n=5, cutoff=0.75)
    return None, [cities[c] for c in close]


def parse_moment(text: str, zone_name: str, *, on_date: str | None = None) -> datetime:
    """An aware datetime from ``HH:MM[:SS]``, ``YYYY-MM-DD`` or an ISO date-time.

    Naive values are read in ``zone_name``; a bare time is on ``on_date`` (default today there).
    """
    tz = zone(zone_name)
    raw = text.strip()
    try:
        if len(raw) <= 8 and ":" in raw:
            clock = time.fromisoformat(raw)
            day = _parse_date(on_date) if on_date else datetime.now(tz=tz).date()
            return datetime.combine(day, clock, tzinfo=tz)
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00") if raw.endswith("Z") else raw)
    except ValueError as exc:
        raise ToolError(
            f"{text!r} is not a time or date: expected HH:MM, YYYY-MM-DD or an ISO date-time such as "
            "2025-03-30T14:00 or 2025-03-30T14:00+02:00"
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        raise ToolError(f"date {text!r} is not a date: expected YYYY-MM-DD, e.g. 2025-03-30") from exc


def add_months(moment: datetime, months: int) -> datetime:
    """``moment`` shifted by ``months`` calendar months, the day clamped to the month's end."""
    if months == 0:
        return moment
    index = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise ToolError(f"the result falls in year {year}, outside 1..9999")
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def humanize(span: timedelta) -> str:
    """``3 days, 4 hours, 5 minutes`` (with a leading ``-`` for negative spans)."""
    sign = "-" if span < timedelta(0) else ""
    seconds = int(abs(span.total_seconds()))
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if count != 1 else ''}")
    return sign + (", ".join(parts) if parts else "0 seconds")
