"""Issue 36: the service's events are frozen dataclasses, subscribed by class; a task's state keeps one JSON form."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from elftia_desktop.connections.events import (
    EVENT_TYPES,
    ServiceEvent,
    ServiceEvents,
    TaskStatus,
    ToolCalled,
    ToolsChanged,
)

TASK = TaskStatus("s1", "tasked", "count_steps", "t1", "c1", "working", "step 1 of 3", 10.0, 12.5, 20)


def test_subscribers_get_the_events_of_their_class_only_until_they_unsubscribe() -> None:
    events = ServiceEvents()
    called: list[ToolCalled] = []
    changed: list[ToolsChanged] = []
    stop = events.on(ToolCalled, called.append)
    events.on(ToolsChanged, changed.append)
    event = ToolCalled("s1", "echo", "ok", 3.0, 1.0, "c1")
    events.emit(event)
    events.emit(ToolsChanged("s1"))
    assert called == [event] and changed == [ToolsChanged("s1")]
    assert called[0].ok and not dataclasses.replace(event, outcome="failed").ok
    stop()
    stop()  # idempotent
    events.emit(event)
    assert called == [event]


def test_a_failing_subscriber_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    events = ServiceEvents()
    seen: list[ToolsChanged] = []

    def broken(_event: ToolsChanged) -> None:
        raise RuntimeError("boom")

    events.on(ToolsChanged, broken)
    events.on(ToolsChanged, seen.append)
    with caplog.at_level(logging.ERROR):
        events.emit(ToolsChanged("s1"))
    assert seen == [ToolsChanged("s1")] and "event handler for ToolsChanged failed" in caplog.text


def test_only_service_events_can_be_subscribed_and_they_are_frozen() -> None:
    @dataclasses.dataclass(frozen=True)
    class Stranger(ServiceEvent):
        pass

    with pytest.raises(ValueError, match="Stranger is not a service event; known: ServerConnected, "):
        ServiceEvents().on(Stranger, lambda _e: None)
    for kind in EVENT_TYPES:
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TASK.status = "completed"  # type: ignore[misc]


def test_a_tasks_state_reads_back_from_its_json() -> None:
    data = TASK.as_json()
    assert data["taskId"] == "t1" and data["statusMessage"] == "step 1 of 3" and data["pollIntervalMs"] == 20
    assert TaskStatus.from_json({"op": "taskStatus", **data}) == TASK  # a host's frame carries it as is
    without_update = {key: value for key, value in data.items() if key != "updatedAt"}
    assert TaskStatus.from_json(without_update).updated_at == 10.0  # an older book: the start stands in
    assert not TASK.ended and dataclasses.replace(TASK, status="cancelled").ended


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"taskId": 7}, "a task's 'taskId' must be text, not int"),
        ({"serverName": None}, "a task's 'serverName' must be text, not NoneType"),
        ({"callId": ["c1"]}, "a task's 'callId' must be text or null, not list"),
        ({"startedAt": "noon"}, "a task's 'startedAt' must be a number (seconds since the epoch), not str"),
        ({"startedAt": True}, "a task's 'startedAt' must be a number (seconds since the epoch), not bool"),
        ({"pollIntervalMs": 2.5}, "a task's 'pollIntervalMs' must be a whole number or null, not float"),
    ],
)
def test_a_state_that_is_not_one_names_its_field(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        TaskStatus.from_json(TASK.as_json() | bad)


def test_a_state_that_is_no_object_says_so() -> None:
    with pytest.raises(ValueError, match="a task's state must be a JSON object, not list"):
        TaskStatus.from_json([1, 2])  # type: ignore[arg-type]
