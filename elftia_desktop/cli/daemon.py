"""``elftia-mcp daemon start | stop | status | autostart [--json]``: the background pool host of this data folder.

``start`` starts it (or finds it running: one host per data folder) and returns once it listens;
``stop`` asks it to stop its servers and exit, and waits until it is gone; ``status`` shows its
clients and the servers it runs. ``run`` is the daemon itself in the foreground (what ``start``
and the on-demand start of ``serve``/``call`` launch); with ``--stay`` it does not exit when it
has nothing to do (what apps given the host's HTTP URL need). ``autostart [--on|--off]`` shows,
turns on or off the entry that runs ``daemon run --stay`` at login (``platform/autostart.py``).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from elftia_desktop.cli.output import EXIT_FAILED, EXIT_OK, add_json_flag, fail, print_json, print_table

STOP_TIMEOUT = 30.0
"""Seconds ``daemon stop`` waits for the host to exit (it stops its servers first)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``daemon start|stop|status|run``."""
    daemon = sub.add_parser("daemon", help="the background pool host that gateways and commands share")
    dsub = daemon.add_subparsers(dest="daemon_command", metavar="ACTION", required=True)
    p = dsub.add_parser("start", help="start the pool host of this data folder (nothing when it runs)")
    p.add_argument("--idle", type=float, metavar="SECONDS", help="stop servers unused this long (default 600)")
    p.add_argument("--stay", action="store_true", help="the host does not exit when no client uses it")
    add_json_flag(p)
    p.set_defaults(handler=cmd_start)
    p = dsub.add_parser("stop", help="stop the pool host and every server it runs")
    add_json_flag(p)
    p.set_defaults(handler=cmd_stop)
    p = dsub.add_parser("status", help="whether the pool host runs, its clients and its servers")
    add_json_flag(p)
    p.set_defaults(handler=cmd_status)
    p = dsub.add_parser("run", help="run the pool host in the foreground (logs on stderr)")
    p.add_argument("--idle", type=float, metavar="SECONDS", help="stop servers unused this long (default 600)")
    p.add_argument("--stay", action="store_true", help="do not exit when no client and no server is left")
    p.add_argument("--data-dir", type=Path, metavar="FOLDER", help="host this data folder (default: ELFTIA_DATA_DIR)")
    p.add_argument("--log-file", type=Path, metavar="FILE", help="append the log to this file (default: stderr)")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    p.set_defaults(handler=cmd_run)
    p = dsub.add_parser("autostart", help="whether the pool host starts at login (--on, --off change it)")
    switch = p.add_mutually_exclusive_group()
    switch.add_argument("--on", action="store_true", help="start 'elftia-mcp daemon run --stay' at login")
    switch.add_argument("--off", action="store_true", help="remove the entry that starts it at login")
    add_json_flag(p)
    p.set_defaults(handler=cmd_autostart)


def _idle(args: argparse.Namespace) -> float | None:
    from elftia_desktop.host.attach import IDLE_ENV

    if args.idle is not None:
        return float(args.idle)
    value = os.environ.get(IDLE_ENV)
    return float(value) if value else None


def cmd_run(args: argparse.Namespace) -> int:
    """``daemon run``: host the pool here until stopped."""
    where: dict[str, Any] = {"filename": args.log_file} if args.log_file is not None else {"stream": sys.stderr}
    logging.basicConfig(**where, level=args.log_level.upper(), format="%(asctime)s elftia host: %(message)s")
    if args.data_dir is not None:  # the Windows login entry (its Run key carries no environment)
        from elftia_desktop.core.paths import DATA_DIR_ENV

        os.environ[DATA_DIR_ENV] = str(args.data_dir)
    from elftia_desktop.host.daemon import AlreadyRunning, run_daemon

    try:
        run_daemon(_idle(args), stay=args.stay)
    except AlreadyRunning as exc:
        print(f"{exc}; nothing to do", file=sys.stderr)
    return EXIT_OK


def cmd_start(args: argparse.Namespace) -> int:
    """``daemon start``: start the host (or find it running) and wait until it listens."""
    from elftia_desktop.host import attach, client

    if args.stay:
        return _show_started(args, *start_staying(args.idle))
    status = client.control("status")
    started = status is None
    if started:  # the idle time goes to the daemon alone: this process's environment stays as it was
        sock, _reply = attach.connect("command", announce=False, idle=args.idle)  # starts it and waits for it
        with sock:
            status = client.request(sock, {"op": "status"})
    assert status is not None
    return _show_started(args, status, started)


def _show_started(args: argparse.Namespace, status: dict[str, Any], started: bool) -> int:
    from elftia_desktop.host import attach

    if args.json:
        print_json({"started": started} | _public(status))
        return EXIT_OK
    print(f"pool host {'started' if started else 'already running'}: pid {status['pid']}, {status['socket']}")
    if status.get("hostedBy") == "window":
        print("the Elftia Desktop window hosts the pool; it stops when the window quits")
    elif status.get("stays"):
        print("it stays until stopped (elftia-mcp daemon stop)")
    else:
        after = min(attach.EMPTY_EXIT, float(status.get("idleSeconds") or attach.EMPTY_EXIT))
        print(f"it exits {after:g} s after its last client and server stop (elftia-mcp daemon stop ends it now)")
    return EXIT_OK


def start_staying(idle: float | None = None) -> tuple[dict[str, Any], bool]:
    """Start ``daemon run --stay`` unless a host runs; its status, and whether this call started it.

    A daemon already running is asked to stay (the window's host stays while the window runs);
    ``NoHost`` when the started one did not come up within ``attach.START_TIMEOUT``.
    """
    from elftia_desktop.host import attach, client
    from elftia_desktop.host.location import host_location

    status = client.control("status")
    if status is not None:
        if status.get("hostedBy") == "daemon" and not status.get("stays"):
            client.control("stay")  # the daemon running now stays too
            status = client.control("status") or status
        return status, False
    location = host_location()
    child = attach.spawn_daemon(location, idle, stay=True)
    deadline = time.monotonic() + attach.START_TIMEOUT
    while time.monotonic() < deadline:
        status = client.control("status")
        if status is not None:
            return status, status.get("pid") == child.pid
        if child.poll() not in (None, 0):
            break
        time.sleep(0.05)
    raise attach.NoHost(f"the pool host did not start (see {location.log})")


def cmd_stop(args: argparse.Namespace) -> int:
    """``daemon stop``: stop the host and its servers; wait until it has exited."""
    from elftia_desktop.host import client

    status = client.control("status")
    if status is None:
        print_json({"stopped": False, "running": False}) if args.json else print("no pool host runs")
        return EXIT_OK
    if status.get("hostedBy") == "window":
        message = f"the pool is hosted by the Elftia Desktop window (pid {status['pid']}); quit the window to stop it"
        print_json({"stopped": False, "running": True, "hostedBy": "window"}) if args.json else print(message)
        return EXIT_FAILED
    client.control("stop")
    pid = int(status["pid"])
    deadline = time.monotonic() + STOP_TIMEOUT
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    gone = not _alive(pid)
    if args.json:
        print_json({"stopped": gone, "pid": pid})
    else:
        print(f"pool host {pid} stopped" if gone else f"pool host {pid} did not stop within {STOP_TIMEOUT:.0f} s")
    return EXIT_OK if gone else EXIT_FAILED


def _alive(pid: int) -> bool:
    from elftia_desktop.platform.runtime import alive

    return alive(pid)


def _public(status: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in status.items() if k != "op"}


def _client_row(c: dict[str, Any]) -> list[Any]:
    app = " ".join(part for part in (c.get("clientName"), c.get("clientVersion")) if part) or "-"
    servers = ", ".join(c.get("serverNames") or []) or "-"
    pid = c["pid"] if c["pid"] is not None else "-"  # an HTTP session: no process of its own
    return [app, c["role"], pid, c["agent"] or ("hub" if c["hub"] else ""), servers, c.get("callsInFlight", 0)]


def cmd_status(args: argparse.Namespace) -> int:
    """``daemon status``: whether the host runs, its clients and its servers."""
    from elftia_desktop.host import client

    status = client.control("status")
    if args.json:
        print_json({"running": status is not None} | (_public(status) if status else {}))
        return EXIT_OK
    if status is None:
        print(
            "no pool host runs (it starts with the first gateway or command that needs it: serve, call, test, discover)"
        )
        return EXIT_OK
    who = "the Elftia Desktop window" if status.get("hostedBy") == "window" else "pool host"
    print(f"{who}: pid {status['pid']}, {status['socket']}, data folder {status['dataDir']}")
    if status.get("stays"):
        print("it stays when unused (daemon run --stay: start at login, or gateway install for HTTP apps)")
    clients = [c for c in status["clients"] if c["pid"] != os.getpid()]
    print(f"clients ({len(clients)}):")
    print_table(["app", "role", "pid", "agent", "servers", "calls"], [_client_row(c) for c in clients])
    print(f"servers running ({len(status['servers'])}):")
    rows = [[s["name"], s["state"], f"{s.get('unusedSeconds', 0):.0f} s"] for s in status["servers"]]
    print_table(["name", "state", "unused for"], rows)
    failed = status.get("failedServers") or []
    if failed:
        print(f"servers that failed to start ({len(failed)}): {', '.join(s['name'] for s in failed)}")
    return EXIT_OK


def cmd_autostart(args: argparse.Namespace) -> int:
    """``daemon autostart [--on|--off]``: show, turn on or off the pool host's start at login."""
    from elftia_desktop.core.paths import data_dir
    from elftia_desktop.gateway.http_install import HOST_LOG
    from elftia_desktop.platform import autostart

    machine = autostart.Machine.current()
    try:
        if args.on:
            autostart.enable(machine, log=data_dir() / HOST_LOG)
        elif args.off:
            autostart.disable(machine)
        state = autostart.state(machine)
    except (autostart.AutostartError, OSError) as exc:
        return fail(args, f"start at login: {exc}", EXIT_FAILED)
    if args.json:
        print_json({"enabled": state.enabled, "where": state.where, "foreign": state.foreign, "ours": state.ours})
        return EXIT_OK
    print(f"start at login: {'on' if state.enabled else 'off'} ({state.where})")
    if state.foreign:
        print("that entry belongs to another program; Elftia leaves it alone")
    elif state.ours and not state.enabled:
        print("the entry is there but switched off in the desktop's settings (--on turns it on again)")
    elif state.enabled:
        print("it runs 'elftia-mcp daemon run --stay' when you log in (turn it off: elftia-mcp daemon autostart --off)")
    return EXIT_OK
