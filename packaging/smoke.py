"""Smoke test of the built bundle: the frozen executables do what the source checkout does.

    .venv/bin/python packaging/smoke.py [dist/elftia-desktop]

The checks run the bundle's own executables; this script is standard-library Python, and only the
HTTP check's test server needs the venv. Each check prints one line; the first failure stops the
run with exit code 1.

1. ``elftia-mcp``: version, presets, ``add-preset clock``, ``list``, ``call Clock get_current_time``,
   and a server started as ``elftia-desktop --run-builtin-server clock`` (the window executable
   serves MCP before Qt loads) with the OS zone database hidden, so the bundled tzdata answers.
2. HTTP: ``elftia-mcp call`` over Streamable HTTP and SSE to the repo's ``basic`` test server on
   127.0.0.1 (run by this interpreter when it has the ``mcp`` SDK, as ``dev.py package``'s venv does);
   then ``daemon stop`` ends the pool host those calls attached to, with its servers.
3. Secrets: inside a D-Bus session with an unlocked gnome-keyring (when installed), an env secret
   goes to the Secret Service and into no file.
4. The window: ``elftia-desktop`` on a fresh data folder, offscreen, until its first paint; it
   calls the built-in clock through its router (its own child ``--run-builtin-server clock``
   process answers); an ``elftia://`` link is handed to the running window (one window, the add
   form filled in, untrusted): opened with ``xdg-open`` after ``install.sh`` registered the handler
   in a scratch ``HOME`` (then ``uninstall.sh`` must remove it all) where xdg-utils and a display
   exist, else given to a second start; every page shows (pictures in ``build/smoke-pages/``); it
   quits; no process of the bundle is left. Its first start registered the link handler itself
   (Linux: the menu entry in a scratch XDG data folder; Windows: ``HKCU\\Software\\Classes\\elftia``).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BUNDLE = ROOT / "dist" / "elftia-desktop"
TOKEN = "smoke-secret-4f1c2b"


class SmokeFailure(Exception):
    """One check failed."""


def ok(text: str) -> None:
    print(f"  ok  {text}", flush=True)


def run(bundle: Path, env: dict[str, str], *args: str, timeout: float = 90) -> str:
    """Run a bundle executable (``elftia-mcp`` unless ``args[0]`` is a path); its stdout, or a failure."""
    command = [str(executable(bundle, "elftia-mcp")), *args]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    if result.returncode != 0:
        raise SmokeFailure(f"{' '.join(command)} exited with {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def check_cli(bundle: Path, env: dict[str, str]) -> None:
    """The command line, the built-in clock with the bundled tzdata, and the window executable as a server."""
    version = run(bundle, env, "--version").strip()
    ok(f"elftia-mcp --version: {version}")
    if "builtin-clock" not in run(bundle, env, "presets"):
        raise SmokeFailure("elftia-mcp presets does not list builtin-clock (resources/presets.json missing?)")
    ok("presets.json is found inside the bundle")
    run(bundle, env, "add-preset", "clock")
    listed = run(bundle, env, "list")
    if "Clock" not in listed:
        raise SmokeFailure(f"elftia-mcp list does not show Clock:\n{listed}")
    ok("elftia-mcp list shows Clock")
    answer = run(bundle, env, "call", "Clock", "get_current_time", "--args", '{"timezone": "Asia/Tokyo"}')
    if '"utc_offset": "+09:00"' not in answer:
        raise SmokeFailure(f"the clock did not answer for Asia/Tokyo:\n{answer}")
    ok("elftia-mcp call Clock get_current_time (Asia/Tokyo)")
    window_exe = str(executable(bundle, "elftia-desktop"))
    no_zones = f"PYTHONTZPATH={Path(tempfile.gettempdir()) / 'no-zoneinfo-here'}"  # hides the OS zone database
    run(
        bundle, env, "add", "gui-clock", "--trust", "--env", no_zones, "--", window_exe, "--run-builtin-server", "clock"
    )
    answer = run(bundle, env, "call", "gui-clock", "convert_time", "--args", _convert_args())
    if "America/New_York" not in answer:
        raise SmokeFailure(f"elftia-desktop --run-builtin-server clock did not convert a time:\n{answer}")
    ok("elftia-desktop --run-builtin-server clock serves MCP on stdio, zones from the bundled tzdata")


def check_http(bundle: Path, env: dict[str, str]) -> None:
    """The bundled HTTP stack (httpx2, anyio): Streamable HTTP and SSE calls to the repo's test server.

    The server runs on this interpreter (it needs the ``mcp`` SDK: the venv ``dev.py package`` made).
    """
    try:
        sys.path.insert(0, str(ROOT))
        from tests.servers.serve_http import serve_http
    except ImportError as exc:
        print(f"  --  HTTP check skipped: the test server cannot run here ({exc})")
        return
    for transport in ("streamable-http", "sse"):
        with serve_http("basic", transport) as url:
            kind = "http" if transport == "streamable-http" else "sse"
            run(bundle, env, "add", f"web-{kind}", "--type", kind, "--url", url, "--trust")
            answer = run(bundle, env, "call", f"web-{kind}", "echo", "--args", '{"text": "over the wire"}')
            if "over the wire" not in answer:
                raise SmokeFailure(f"the {transport} echo did not come back:\n{answer}")
    ok("elftia-mcp called a tool over Streamable HTTP and over SSE (127.0.0.1)")


def _convert_args() -> str:
    return json.dumps({"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "America/New_York"})


def check_keyring(bundle: Path, env: dict[str, str], scratch: Path) -> None:
    """An env secret lands in a real Secret Service (gnome-keyring in a private D-Bus session)."""
    if not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")):
        print("  --  Secret Service check skipped: dbus-run-session or gnome-keyring-daemon is not installed")
        return
    home, data = scratch / "keyring-home", scratch / "keyring-data"
    home.mkdir()
    data.mkdir()
    shell = 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"'
    command = [str(executable(bundle, "elftia-mcp")), "add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}"]
    command += ["--", "npx", "-y", "gh"]
    keyring_env = {k: v for k, v in env.items() if k != "PYTHON_KEYRING_BACKEND"}
    keyring_env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"), "ELFTIA_DATA_DIR": str(data)}
    result = subprocess.run(
        ["dbus-run-session", "--", "sh", "-c", shell, "sh", *command],
        capture_output=True,
        text=True,
        env=keyring_env,
        timeout=90,
        check=False,
    )
    if result.returncode != 0:
        raise SmokeFailure(f"elftia-mcp add with a secret failed:\n{result.stdout}\n{result.stderr}")
    leaked = [p for p in data.rglob("*") if p.is_file() and TOKEN in p.read_text(errors="replace")]
    config = (data / "mcp-config.json").read_text()
    if leaked or "${secret:GITHUB_TOKEN}" not in config or (data / "secrets.json").exists():
        raise SmokeFailure(f"the secret did not go to the Secret Service (files with it: {leaked}):\n{result.stdout}")
    ok("keyring's Secret Service backend works inside the bundle (the token is in no file)")


class Window:
    """The running ``elftia-desktop``, driven through its ``ELFTIA_PROBE`` file."""

    def __init__(self, bundle: Path, env: dict[str, str], scratch: Path) -> None:
        self.bundle = bundle
        self.probe = scratch / "probe.jsonl"
        self.env = env | {"ELFTIA_PROBE": str(self.probe)}
        self.log = (scratch / "window.log").open("w")
        self.process = subprocess.Popen(
            [str(executable(bundle, "elftia-desktop"))], env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def events(self) -> list[dict[str, Any]]:
        if not self.probe.exists():
            return []
        return [json.loads(line) for line in self.probe.read_text().splitlines() if line.strip()]

    def wait_for(self, event: str, after: int = 0, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [e for e in self.events()[after:] if e.get("event") == event]
            if found:
                return found[0]
            if self.process.poll() is not None:
                raise SmokeFailure(f"elftia-desktop exited with {self.process.returncode} (see its log)")
            time.sleep(0.1)
        raise SmokeFailure(f"no {event!r} from elftia-desktop within {timeout:.0f} s")

    def command(self, line: str, answer: str, timeout: float = 60) -> dict[str, Any]:
        seen = len(self.events())
        self.probe.with_name(self.probe.name + ".cmd").write_text(line + "\n")
        return self.wait_for(answer, after=seen, timeout=timeout)


def check_window(bundle: Path, env: dict[str, str], scratch: Path) -> None:
    """Start, call the clock from the window, hand over a link, quit, and leave nothing running."""
    started = time.time()
    window = Window(bundle, env, scratch)
    try:
        shown = window.wait_for("shown", timeout=90)
        ok(f"elftia-desktop painted its window {float(str(shown['time'])) - started:.2f} s after the start")
        called = window.command('call Clock get_current_time {"timezone": "Europe/Paris"}', "called")
        if not called.get("ok"):
            raise SmokeFailure(f"the window's call to the built-in clock failed: {called}")
        table = process_table()
        if table is None:
            print("  --  process checks skipped: no /proc and no ps here (Windows)")
        else:
            children = [cmd for pid, ppid, cmd in table if ppid == window.process.pid and in_bundle(bundle, cmd)]
            if not any("--run-builtin-server clock" in c for c in children):
                raise SmokeFailure(f"the window did not start the clock as its own child: {children}")
        ok("the window called get_current_time on the built-in clock")
        viewed = window.command("apps-view", "apps-view", timeout=90)
        if not viewed.get("ok"):
            raise SmokeFailure(f"the bundle's QtWebEngine did not run an MCP App view: {viewed}")
        ok("QtWebEngine runs an MCP App view in the bundle (its message crossed the relay)")
        check_pages(window)
        check_first_start_registration(bundle, scratch)
        check_link(bundle, window)
        _quit(window)
        left = bundle_processes(bundle)
        if left:
            raise SmokeFailure(f"processes of the bundle are still running after quit: {left}")
        ok("quit: the window exited with code 0 and no process of the bundle is left")
    finally:
        if window.process.poll() is None:
            window.process.kill()
        window.log.close()


def check_pages(window: Window) -> None:
    """Every page of the window shows and paints; the pictures stay in ``build/smoke-pages/`` to look at."""
    folder = ROOT / "build" / "smoke-pages"
    pages = window.command(f"pages {folder}", "pages", timeout=90).get("pages") or {}
    failed = {key: page for key, page in pages.items() if not page["shown"] or min(page["size"]) <= 0}
    if not pages or failed:
        raise SmokeFailure(f"pages of the window did not show or paint: {failed or 'none reported'}")
    ok(f"every page of the window shows and paints ({', '.join(pages)}; pictures in {folder})")


def check_first_start_registration(bundle: Path, scratch: Path, timeout: float = 30) -> None:
    """The window's first start registered ``elftia://`` for the bundle (Linux: in the scratch XDG home)."""
    exe = executable(bundle, "elftia-desktop")
    deadline = time.monotonic() + timeout
    if sys.platform == "win32":
        command = _registered_command()
        while command is None and time.monotonic() < deadline:
            time.sleep(0.1)
            command = _registered_command()
        if command is None:
            raise SmokeFailure("the first start registered no elftia:// scheme under HKCU")
        ok(f"first start: HKCU elftia:// opens {command}" + ("" if str(exe) in command else " (another copy)"))
        return
    if not sys.platform.startswith("linux"):
        return
    entry = scratch / "xdg-data" / "applications" / "elftia-desktop.desktop"
    written = lambda: entry.is_file() and f"TryExec={exe}" in entry.read_text().splitlines()  # noqa: E731
    while not written() and time.monotonic() < deadline:
        time.sleep(0.1)
    if not written():
        raise SmokeFailure(f"the first start wrote no menu entry for the bundle at {entry}")
    ok("first start: the menu entry (elftia:// handler) written for the bundle")


def _registered_command() -> str | None:
    """The command of ``HKCU\\Software\\Classes\\elftia`` (Windows), or None while there is none."""
    import winreg

    try:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, r"Software\Classes\elftia\shell\open\command") as key:
            return str(winreg.QueryValueEx(key, "")[0])
    except OSError:
        return None


def check_link(bundle: Path, window: Window) -> None:
    """A second start with an install link hands it over and exits; the form opens filled in."""
    entry = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
    config = base64.urlsafe_b64encode(json.dumps(entry).encode()).decode().rstrip("=")
    link = f"elftia://install-mcp?name=memory&config={config}"
    opener, env, how = [str(executable(bundle, "elftia-desktop"))], window.env, "a second start with an elftia:// link"
    if desktop_links_work():
        home = window.probe.parent / "desktop-home"
        env = install_desktop_entry(bundle, window.env, home)
        opener, how = ["xdg-open"], "xdg-open of an elftia:// link (install.sh registered the handler)"
    second = subprocess.run([*opener, link], env=env, timeout=30, check=False)
    if second.returncode != 0:
        raise SmokeFailure(f"{opener[0]} with the link exited with {second.returncode}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = window.command("forms", "forms")
        forms = answer.get("forms") or []
        if forms:
            break
        time.sleep(0.3)
    if answer.get("mainWindows") != 1 or len(forms) != 1:
        raise SmokeFailure(f"expected one window with one add form, got {answer}")
    params = forms[0]["params"]
    expected = {"name": "memory", "isTrusted": False, "installSource": "protocol"}
    if any(params.get(k) != v for k, v in expected.items()) or params["config"]["args"] != entry["args"]:
        raise SmokeFailure(f"the link's form is not filled in as expected: {params}")
    ok(f"{how}: one window, the add form filled in, untrusted")
    if opener == ["xdg-open"]:
        uninstall_desktop_entry(bundle, env)


def desktop_links_work() -> bool:
    """``xdg-open`` can hand a link to its handler here: xdg-utils and a display (Xvfb in CI)."""
    return bool(shutil.which("xdg-open") and shutil.which("xdg-mime") and os.environ.get("DISPLAY"))


def install_desktop_entry(bundle: Path, env: dict[str, str], home: Path) -> dict[str, str]:
    """Run ``install.sh`` for a scratch ``home``; the environment in which the handler is registered."""
    home.mkdir()
    env = {k: v for k, v in env.items() if not k.startswith("XDG_")} | {"HOME": str(home)}
    subprocess.run(["sh", str(bundle / "install.sh")], env=env, check=True, timeout=60, stdout=subprocess.DEVNULL)
    query = ["xdg-mime", "query", "default", "x-scheme-handler/elftia"]
    handler = subprocess.run(query, env=env, capture_output=True, text=True, timeout=30, check=False).stdout.strip()
    entry = home / ".local/share/applications/elftia-desktop.desktop"
    icon = home / ".local/share/icons/hicolor/256x256/apps/elftia-desktop.png"
    if handler != "elftia-desktop.desktop" or not entry.is_file() or not icon.is_file():
        raise SmokeFailure(f"install.sh did not register the menu entry, icon and handler (xdg-mime: {handler!r})")
    if f"Exec={bundle / 'elftia-desktop'} %u" not in entry.read_text():
        raise SmokeFailure(f"the installed menu entry does not start the bundle:\n{entry.read_text()}")
    ok("install.sh: menu entry starting the bundle, icon, x-scheme-handler/elftia registered with xdg-mime")
    return env


def uninstall_desktop_entry(bundle: Path, env: dict[str, str]) -> None:
    """Run ``uninstall.sh``; nothing of the entry, the icons or the handler may remain."""
    subprocess.run(["sh", str(bundle / "uninstall.sh")], env=env, check=True, timeout=60, stdout=subprocess.DEVNULL)
    home = Path(env["HOME"])
    left = [p for p in home.rglob("*elftia*") if p.is_file() or p.is_symlink()]
    mimeapps = home / ".config" / "mimeapps.list"
    if left or (mimeapps.exists() and "elftia" in mimeapps.read_text()):
        raise SmokeFailure(f"uninstall.sh left {left} (or the handler in {mimeapps})")
    ok("uninstall.sh removed the menu entry, icons, command links and the handler")


def _quit(window: Window) -> None:
    window.probe.with_name(window.probe.name + ".cmd").write_text("quit\n")
    try:
        code = window.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        raise SmokeFailure("elftia-desktop did not quit within 60 s") from None
    if code != 0:
        raise SmokeFailure(f"elftia-desktop exited with {code} on quit")


def check_daemon_stop(bundle: Path, env: dict[str, str]) -> None:
    """The CLI's calls attached to a pool host started on demand: ``daemon stop`` ends it with its servers."""
    status = run(bundle, env, "daemon", "status")
    run(bundle, env, "daemon", "stop")
    deadline = time.monotonic() + 15
    while bundle_processes(bundle) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = bundle_processes(bundle)
    if left:
        raise SmokeFailure(f"daemon stop left processes of the bundle running: {left}")
    ok(f"daemon stop: the pool host of the CLI's calls ended with its servers ({status.strip().splitlines()[0]})")


def executable(bundle: Path, name: str) -> Path:
    """The bundle's executable ``name`` (``name.exe`` on Windows)."""
    return bundle / (f"{name}.exe" if sys.platform == "win32" else name)


def process_table() -> list[tuple[int, int, str]] | None:
    """``(pid, parent pid, command line)`` of every process: from ``/proc`` (Linux), ``ps`` (macOS); else None."""
    if Path("/proc/self/stat").exists():
        return [row for entry in Path("/proc").iterdir() if entry.name.isdigit() and (row := _proc_row(entry))]
    if shutil.which("ps") and sys.platform != "win32":
        out = subprocess.run(["ps", "-axww", "-o", "pid=,ppid=,command="], capture_output=True, text=True, check=False)
        rows = [line.split(None, 2) for line in out.stdout.splitlines()]
        return [(int(r[0]), int(r[1]), r[2]) for r in rows if len(r) == 3]
    return None


def _proc_row(entry: Path) -> tuple[int, int, str] | None:
    """One process of ``/proc``; None when it is gone or has no command line."""
    try:
        argv = (entry / "cmdline").read_bytes().split(b"\0")
        ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None
    command = " ".join(a.decode(errors="replace") for a in argv if a)
    return (int(entry.name), ppid, command) if command else None


def in_bundle(bundle: Path, command: str) -> bool:
    """Whether a command line starts with a program of the bundle's folder."""
    return command.startswith(str(bundle.resolve()))


def bundle_processes(bundle: Path) -> list[tuple[int, str]]:
    """``(pid, command line)`` of every running process started from the bundle's folder (none known on Windows)."""
    return [(pid, cmd) for pid, _, cmd in process_table() or [] if in_bundle(bundle, cmd)]


def main(argv: list[str]) -> int:
    """Run every check against the bundle folder ``argv[0]`` (default ``dist/elftia-desktop``)."""
    bundle = Path(argv[0]).resolve() if argv else DEFAULT_BUNDLE
    if not executable(bundle, "elftia-desktop").is_file():
        print(f"no bundle at {bundle}: build it with 'python3 dev.py package'", file=sys.stderr)
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="elftia-smoke-") as folder:
        scratch = Path(folder)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ELFTIA_", "PYTHON"))}
        base |= {"QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
        try:
            print(f"Smoke test of {bundle}", flush=True)
            check_cli(bundle, base | {"ELFTIA_DATA_DIR": str(scratch / "cli-data")})
            check_http(bundle, base | {"ELFTIA_DATA_DIR": str(scratch / "cli-data")})
            check_daemon_stop(bundle, base | {"ELFTIA_DATA_DIR": str(scratch / "cli-data")})
            check_keyring(bundle, base, scratch)
            window_env = {"ELFTIA_DATA_DIR": str(scratch / "window-data"), "XDG_DATA_HOME": str(scratch / "xdg-data")}
            window_env["XDG_CONFIG_HOME"] = str(scratch / "xdg-config")  # the first start registers links there
            check_window(bundle, base | window_env, scratch)
        except (SmokeFailure, subprocess.TimeoutExpired) as exc:
            log = scratch / "window.log"
            if log.exists() and log.stat().st_size:
                print(f"--- elftia-desktop log ---\n{log.read_text()[-4000:]}", file=sys.stderr)
            print(f"SMOKE FAILED: {exc}", file=sys.stderr)
            return 1
    print(f"Smoke test passed in {time.monotonic() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
