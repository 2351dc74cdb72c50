"""The clock server on the SDK's in-memory transport (test_builtin_launcher.py starts it as a process):
current time, conversion, zone look-up, date arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.builtin_servers.builtin_helpers import builtin_session, call, call_error

pytestmark = pytest.mark.anyio


async def test_lists_its_tools_with_descriptions() -> None:
    async with builtin_session("clock") as session:
        listing = await session.list_tools()
    names = {tool.name for tool in listing.tools}
    assert {"get_current_time", "convert_time", "list_timezones", "resolve_timezone", "add_to_date"} <= names
    assert all(tool.description for tool in listing.tools)


async def test_current_time_in_a_zone_is_now() -> None:
    async with builtin_session("clock") as session:
        info = await call(session, "get_current_time", timezone="Asia/Tokyo")
    assert info["timezone"] == "Asia/Tokyo"
    assert info["utc_offset"] == "+09:00"
    assert info["abbreviation"] == "JST"
    moment = datetime.fromisoformat(info["datetime"])
    assert abs(moment - datetime.now(tz=UTC)) < timedelta(minutes=5)


async def test_conversion_across_dst_and_half_hour_zones() -> None:
    async with builtin_session("clock") as session:
        summer = await call(
            session,
            "convert_time",
            time="14:30",
            source_timezone="Europe/Berlin",
            target_timezone="Asia/Kolkata",
            date="2025-07-01",
        )
        winter = await call(
            session,
            "convert_time",
            time="2025-01-15T14:30",
            source_timezone="Europe/Berlin",
            target_timezone="America/New_York",
        )
    assert summer["source"]["is_dst"] is True
    assert summer["target"]["datetime"] == "2025-07-01T18:00:00+05:30"
    assert summer["time_difference"] == "+3.5h"
    assert winter["target"]["datetime"] == "2025-01-15T08:30:00-05:00"
    assert winter["time_difference"] == "-6h"


async def test_unknown_zone_is_a_clear_error_with_suggestions() -> None:
    async with builtin_session("clock") as session:
        text = await call_error(session, "get_current_time", timezone="Europe/Pariss")
    assert "unknown time zone 'Europe/Pariss'" in text
    assert "Europe/Paris" in text


async def test_bad_time_text_names_the_expected_forms() -> None:
    async with builtin_session("clock") as session:
        text = await call_error(
            session, "convert_time", time="half past two", source_timezone="UTC", target_timezone="UTC"
        )
    assert "'half past two' is not a time or date" in text
    assert "HH:MM" in text


async def test_list_and_resolve_zones() -> None:
    async with builtin_session("clock") as session:
        listing = await call(session, "list_timezones", query="argentina", limit=3)
        tokyo = await call(session, "resolve_timezone", name="tokyo")
        new_york = await call(session, "resolve_timezone", name="New York")
        utc = await call(session, "resolve_timezone", name="gmt")
        nothing = await call(session, "resolve_timezone", name="Atlantis")
    assert listing["total"] > 3
    assert len(listing["zones"]) == 3
    assert all("Argentina" in z for z in listing["zones"])
    assert tokyo["timezone"] == "Asia/Tokyo"
    assert new_york["timezone"] == "America/New_York"
    assert utc["timezone"] == "UTC"
    assert nothing["timezone"] is None


async def test_date_arithmetic_clamps_months_and_counts_elapsed_hours() -> None:
    async with builtin_session("clock") as session:
        leap = await call(session, "add_to_date", start="2024-01-31", months=1, timezone="UTC")
        back = await call(session, "add_to_date", start="2024-03-31", months=-1, years=-1, timezone="UTC")
        # 2025-03-30 02:00 CET is the spring-forward gap in Berlin: 24 elapsed hours land at 01:00+02:00 + 1h.
        dst = await call(session, "add_to_date", start="2025-03-29T12:00", hours=24, timezone="Europe/Berlin")
        calendar_day = await call(session, "add_to_date", start="2025-03-29T12:00", days=1, timezone="Europe/Berlin")
        diff = await call(
            session, "date_difference", start="2025-03-29T12:00", end="2025-03-30T12:00", timezone="Europe/Berlin"
        )
        weekday = await call(session, "day_of_week", day="2000-01-01")
    assert leap["datetime"].startswith("2024-02-29T00:00:00")
    assert back["datetime"].startswith("2023-02-28")
    assert dst["datetime"] == "2025-03-30T13:00:00+02:00"
    assert calendar_day["datetime"] == "2025-03-30T12:00:00+02:00"
    assert diff["total_seconds"] == 23 * 3600
    assert diff["human"] == "23 hours"
    assert weekday == "Saturday"
