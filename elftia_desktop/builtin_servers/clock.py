"""Built-in MCP server: the current time in any IANA zone, conversions, zone look-up and date arithmetic.

Run it as ``python -m elftia_desktop.builtin_servers.clock`` (stdio). All data comes from
:mod:`zoneinfo` (the system zone database, or the ``tzdata`` package where there is none).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from elftia_desktop.builtin_servers import timezones
from elftia_desktop.builtin_servers.timezones import parse_moment, zone

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
"""Every clock tool only reads the clock and the time zone database: it runs without asking by default."""

server = MCPServer(
    "clock",
    instructions="Current time, time-zone conversion and date arithmetic. Zones are IANA names (Europe/Paris).",
    log_level="WARNING",
)


class TimeInfo(BaseModel):
    """One moment as seen in one zone."""

    timezone: str
    """The IANA zone name."""
    datetime: str
    """ISO 8601 with the UTC offset."""
    weekday: str
    utc_offset: str
    """`+09:00` style."""
    abbreviation: str
    """`JST`, `CEST` ... (as the zone database names it)."""
    is_dst: bool


class Conversion(BaseModel):
    """A time converted from one zone to another."""

    source: TimeInfo
    target: TimeInfo
    time_difference: str
    """Target offset minus source offset, `+7h` or `-5.5h`."""


class ZoneList(BaseModel):
    """Zones matching a query."""

    total: int
    """How many zones matched (`zones` may be cut to `limit`)."""
    zones: list[str]


class ZoneMatch(BaseModel):
    """The result of resolving a loose zone name."""

    query: str
    timezone: str | None
    """The best match, or null when nothing matched."""
    candidates: list[str] = Field(default_factory=list)
    """Other plausible zones, best first."""


class DateDifference(BaseModel):
    """The span between two moments."""

    days: int
    """Whole days (negative when end is before start)."""
    total_seconds: float
    human: str
    """`3 days, 4 hours, 5 minutes`."""


def describe(moment: datetime, zone_name: str) -> TimeInfo:
    """Describe an aware `moment` in the zone `zone_name`."""
    local = moment.astimezone(zone(zone_name))
    return TimeInfo(
        timezone=zone_name,
        datetime=local.isoformat(timespec="seconds"),
        weekday=local.strftime("%A"),
        utc_offset=timezones.format_offset(local.utcoffset() or timedelta(0)),
        abbreviation=local.tzname() or "",
        is_dst=bool(local.dst()),
    )


@server.tool(annotations=READ_ONLY)
def get_current_time(timezone: str | None = None) -> TimeInfo:
    """Current date and time in an IANA time zone (default: this computer's zone)."""
    name = timezone or timezones.local_zone_name()
    return describe(datetime.now(tz=zone(name)), name)


@server.tool(annotations=READ_ONLY)
def convert_time(time: str, source_timezone: str, target_timezone: str, date: str | None = None) -> Conversion:
    """Convert a time from one zone to another.

    `time` is `HH:MM`, `HH:MM:SS` or a full ISO date-time; `date` (`YYYY-MM-DD`)
    picks the day for a bare time (default: today in the source zone).
    """
    moment = parse_moment(time, source_timezone, on_date=date)
    source = describe(moment, source_timezone)
    target = describe(moment, target_timezone)
    src_off = moment.astimezone(zone(source_timezone)).utcoffset() or timedelta(0)
    dst_off = moment.astimezone(zone(target_timezone)).utcoffset() or timedelta(0)
    hours = (dst_off - src_off).total_seconds() / 3600
    return Conversion(source=source, target=target, time_difference=f"{hours:+g}h")


@server.tool(annotations=READ_ONLY)
def list_timezones(query: str = "", limit: int = 100) -> ZoneList:
    """IANA zone names containing `query` (case-insensitive; empty lists all), sorted."""
    if limit < 1:
        raise ToolError(f"limit must be at least 1, got {limit}")
    matches = timezones.search_zones(query)
    return ZoneList(total=len(matches), zones=matches[:limit])


@server.tool(annotations=READ_ONLY)
def resolve_timezone(name: str) -> ZoneMatch:
    """Find the IANA zone meant by a loose name: `tokyo`, `new york`, `utc`, `Europe/paris`."""
    best, candidates = timezones.resolve(name)
    return ZoneMatch(query=name, timezone=best, candidates=candidates)


@server.tool(annotations=READ_ONLY)
def add_to_date(
    start: str,
    years: int = 0,
    months: int = 0,
    weeks: int = 0,
    days: int = 0,
    hours: int = 0,
    minutes: int = 0,
    seconds: int = 0,
    timezone: str | None = None,
) -> TimeInfo:
    """Add (or, with negative numbers, subtract) a span to a date or date-time.

    `start` is `YYYY-MM-DD`, an ISO date-time, or `now`. The arithmetic happens on the
    wall clock of `timezone` (default: this computer's zone; an aware `start` is converted
    there first). Months and years keep the day of the month, clamped to the month's last day
    (Jan 31 + 1 month = Feb 28/29); hours, minutes and seconds are elapsed time.
    """
    name = timezone or timezones.local_zone_name()
    tz = zone(name)
    moment = datetime.now(tz=tz) if start.strip().lower() == "now" else parse_moment(start, name)
    local = timezones.add_months(moment.astimezone(tz), years * 12 + months)
    wall = local.replace(tzinfo=None) + timedelta(weeks=weeks, days=days)
    elapsed = timedelta(hours=hours, minutes=minutes, seconds=seconds)
    result = (wall.replace(tzinfo=tz).astimezone(UTC) + elapsed).astimezone(tz)
    return describe(result, name)


@server.tool(annotations=READ_ONLY)
def date_difference(start: str, end: str, timezone: str | None = None) -> DateDifference:
    """The span from `start` to `end` (dates or ISO date-times; naive ones in `timezone`)."""
    name = timezone or timezones.local_zone_name()
    first = parse_moment(start, name)
    second = parse_moment(end, name)
    span = second.astimezone(UTC) - first.astimezone(UTC)  # elapsed time, not wall-clock
    whole_days = span.days if span >= timedelta(0) else -(-span).days
    return DateDifference(days=whole_days, total_seconds=span.total_seconds(), human=timezones.humanize(span))


@server.tool(annotations=READ_ONLY)
def day_of_week(day: str) -> str:
    """The weekday of a date given as `YYYY-MM-DD`."""
    try:
        return date.fromisoformat(day).strftime("%A")
    except ValueError as exc:
        raise ToolError(f"day {day!r} is not a date: expected YYYY-MM-DD, e.g. 2025-03-30") from exc


def main() -> None:
    """Serve over stdio until the client closes stdin."""
    server.run("stdio")


if __name__ == "__main__":
    main()
