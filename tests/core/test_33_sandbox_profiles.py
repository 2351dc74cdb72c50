"""Issue 33: the sandbox profile's words, its place in trust, and the OS command lines built from it.

The macOS ``sandbox-exec`` profile is checked as text here (it runs on the macOS runner); the bubblewrap
command line is checked for what each guarantee needs (the real effect is in
``tests/connections/test_33_sandbox.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as NoKeyring

from elftia_desktop.core.catalog import ServerCatalog, sandbox_by_default
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.presets import McpPreset, find_preset, load_presets, preset_to_input
from elftia_desktop.core.sandbox import PACKAGE_HOSTS, McpSandbox, describe_sandbox, preset_sandbox, sandbox_changes
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.core.trust import launch_changes, mark_trusted, needs_confirmation
from elftia_desktop.platform.sandbox import NO_WINDOWS, ProxyLink, SandboxSpec, sandbox_support
from elftia_desktop.platform.sandbox_linux import bwrap_argv
from elftia_desktop.platform.sandbox_macos import sandbox_profile

SPEC = SandboxSpec(
    argv=["/usr/bin/node", "server.js"],
    home="/home/ann",
    cwd="/home/ann/project",
    read=["/opt/node", "/home/ann/ref"],
    write=["/home/ann/.npm", "/home/ann/project"],
)


def record(sandbox: dict[str, object] | None) -> McpServerRecord:
    return McpServerRecord(name="s", type="stdio", config={"command": "node", "args": ["x.js"]}, sandbox=sandbox)


def test_loosening_needs_confirming_again_and_tightening_does_not() -> None:
    server = record({"net": "none", "allowWrite": ["/srv/a"]})
    mark_trusted(server)
    tighter = server.model_copy(update={"sandbox": McpSandbox(net="none")})
    assert not needs_confirmation(tighter)
    for looser, change in [
        (McpSandbox(enabled=False), ("sandbox", "on", "off")),
        (McpSandbox(net="any", allow_write=["/srv/a"]), ("sandbox network", "none", "any")),
        (McpSandbox(allow_write=["/srv/a", "/srv/b"]), ("sandbox may write", "/srv/a", "/srv/a, /srv/b")),
    ]:
        changed = server.model_copy(update={"sandbox": looser})
        assert needs_confirmation(changed)
        assert change in launch_changes(changed)


def test_a_new_allowed_host_is_a_change_a_dropped_one_is_not() -> None:
    confirmed = McpSandbox(net="allow", allow_net=["a.example:443"]).fingerprint()
    more = McpSandbox(net="allow", allow_net=["a.example:443", "b.example"]).fingerprint()
    assert sandbox_changes(confirmed, more) == [
        ("sandbox network", "allow a.example:443", "allow a.example:443, b.example")
    ]
    assert sandbox_changes(more, confirmed) == []
    assert sandbox_changes(None, more) == []  # no sandbox confirmed: all rights, so anything is tighter


def test_an_older_fingerprint_without_a_sandbox_still_holds() -> None:
    server = record(None)
    mark_trusted(server)
    assert server.trusted_launch is not None
    server.trusted_launch.pop("sandbox")
    assert not needs_confirmation(server)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"allowRead": ["docs"]}, "must be absolute"),
        ({"allowNet": ["a b"]}, "is not a host or host:port"),
        ({"net": "some"}, "net"),
    ],
)
def test_bad_profiles_name_the_field(value: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        McpSandbox.model_validate(value)


def test_the_prompt_says_what_the_server_may_touch() -> None:
    rows = dict(describe_sandbox(McpSandbox(allow_write=["~/Documents"], net="allow", allow_net=["api.x.com"]), None))
    assert rows["May write"] == "~/Documents" and rows["Network"] == "only api.x.com"
    assert "all your rights" in dict(describe_sandbox(None, None))["Sandbox"]
    assert NO_WINDOWS in dict(describe_sandbox(McpSandbox(), NO_WINDOWS))["Sandbox"]


def test_preset_profiles_take_the_values_filled_in() -> None:
    sandbox = preset_sandbox({"writeValues": ["directory"], "net": "none"}, {"directory": "/srv/docs"})
    assert sandbox.allow_write == ["/srv/docs"] and sandbox.net == "none"
    sqlite = preset_sandbox({"writeParentOf": ["db_path"]}, {"db_path": "/srv/db/app.sqlite"})
    assert sqlite.allow_write == ["/srv/db"]


@pytest.mark.skipif(sandbox_support() is not None, reason="presets carry a sandbox only where one works")
def test_presets_and_unvetted_sources_start_sandboxed(tmp_path: Path) -> None:
    presets = load_presets()

    def get_preset(name: str) -> McpPreset:
        return find_preset(presets, name)

    files = preset_to_input(get_preset("filesystem"), values={"directory": str(tmp_path)})
    assert files.sandbox is not None and files.sandbox.allow_write == [str(tmp_path)]
    assert files.sandbox.allow_net == ["registry.npmjs.org:443"]
    assert preset_to_input(get_preset("fetch")).sandbox == McpSandbox(net="any")
    assert preset_to_input(get_preset("builtin-clock")).sandbox is None
    imported = McpServerInput(name="x", config={"command": "npx"}, install_source="unknown")
    assert sandbox_by_default(imported).sandbox == McpSandbox(net="allow", allow_net=PACKAGE_HOSTS)
    catalog = ServerCatalog(ConfigStore(tmp_path / "mcp-config.json"), SecretVault(NoKeyring(), tmp_path / "s.json"))
    assert catalog.add(imported) is not None and catalog.find("x").sandbox is not None
    by_hand = McpServerInput(name="y", config={"command": "npx"})
    assert catalog.add(by_hand) is not None and catalog.find("y").sandbox is None  # offered in the form, not imposed


def test_bwrap_command_line() -> None:
    argv = bwrap_argv(SPEC, "/usr/bin/bwrap")
    joined = " ".join(argv)
    assert argv[0] == "/usr/bin/bwrap" and argv[-3:] == ["--", "/usr/bin/node", "server.js"]
    for option in ("--die-with-parent", "--unshare-pid", "--unshare-net", "--proc /proc", "--tmpfs /tmp"):
        assert option in joined
    assert "--tmpfs /home/ann" in joined and "--remount-ro /home/ann" in joined
    assert joined.index("--tmpfs /home/ann") < joined.index("--bind-try /home/ann/.npm /home/ann/.npm")
    assert "--ro-bind-try /home/ann/ref /home/ann/ref" in joined and "--chdir /home/ann/project" in joined
    assert "--unshare-net" not in bwrap_argv(SandboxSpec(argv=["x"], home="/h", net="any"), "bwrap")


def test_bwrap_proxy_mode_starts_the_forwarder() -> None:
    spec = SandboxSpec(argv=["srv"], home="/h", net="proxy", proxy=ProxyLink(3128, "/tmp/sock-dir", "/usr/bin/python3"))
    argv = bwrap_argv(spec, "bwrap")
    tail = argv[argv.index("--") + 1 :]
    assert tail[:4] == ["/usr/bin/python3", "-I", "-S", "/run/elftia-sandbox/forward.py"]
    assert tail[-2:] == ["--", "srv"] and "--unshare-net" in argv
    assert "/tmp/sock-dir" in argv


def test_macos_profile_text() -> None:
    text = sandbox_profile(SPEC)
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    assert '(subpath "/home/ann/ref")' in next(line for line in lines if line.startswith("(allow file-read* (subpath"))
    writes = next(line for line in lines if line.startswith("(allow file-read* file-write*"))
    assert '(subpath "/home/ann/.npm")' in writes and '(subpath "/home/ann/project")' in writes
    assert "network" not in text
    assert "(allow network*)" in sandbox_profile(SandboxSpec(argv=["x"], home="/h", net="any"))
    proxied = sandbox_profile(SandboxSpec(argv=["x"], home="/h", net="proxy", proxy=ProxyLink(4711)))
    assert '(allow network-outbound (remote ip "localhost:4711"))' in proxied
    quoted = sandbox_profile(SandboxSpec(argv=["x"], home="/h", read=['/a "b"']))
    assert '(subpath "/a \\"b\\"")' in quoted


def test_proxy_allow_list_matching() -> None:
    from elftia_desktop.connections.sandbox_proxy import host_allowed

    allowed = ["api.github.com:443", "*.example.com", "[::1]:8080"]
    assert host_allowed(allowed, "api.github.com", 443)
    assert not host_allowed(allowed, "api.github.com", 80)
    assert host_allowed(allowed, "cdn.example.com", 80) and not host_allowed(allowed, "example.org", 443)
    assert host_allowed(allowed, "[::1]", 8080) and not host_allowed(allowed, "::1", 8081)
    assert not host_allowed([], "localhost", 80)


def test_one_click_allowances_from_denials() -> None:
    from elftia_desktop.core.sandbox import allow_blocked

    none = McpSandbox(net="none")
    host = allow_blocked(none, "network api.github.com:443 (not allowed)")
    assert host is not None and host.net == "allow" and host.allow_net == ["api.github.com:443"]
    loop = allow_blocked(McpSandbox(net="loopback"), "network db.internal:5432 (not allowed)")
    assert loop is not None and loop.allow_net == ["localhost", "127.0.0.1", "::1", "db.internal:5432"]
    read = allow_blocked(none, "file /home/ann/.gitconfig (outside the sandbox)")
    assert read is not None and read.allow_read == ["/home/ann/.gitconfig"] and read.allow_write == []
    write = allow_blocked(none, "file /home/ann/notes.md (not allowed)")
    assert write is not None and write.allow_write == ["/home/ann/notes.md"]
    assert allow_blocked(none, "network (the sandbox has no network: Connection refused)") is None
    assert allow_blocked(None, "file /x (not allowed)") is None
    assert none.net == "none" and none.allow_read == []  # the record's profile is not changed in place


def test_a_script_argument_brings_its_folder_but_never_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elftia_desktop.connections.sandbox import script_folders

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "server.py").write_text("")
    (tmp_path / "loose.py").write_text("")
    args = [str(tmp_path / "tools" / "server.py"), str(tmp_path / "loose.py"), "--flag", "relative.py"]
    assert script_folders(args, str(tmp_path)) == [str(tmp_path / "tools"), str(tmp_path / "loose.py")]


@pytest.mark.anyio
async def test_a_sandboxed_server_never_starts_unsandboxed_where_none_works(monkeypatch: pytest.MonkeyPatch) -> None:
    from elftia_desktop.connections import sandbox as connections_sandbox
    from elftia_desktop.core.errors import ServerStartFailed

    monkeypatch.setattr(connections_sandbox, "sandbox_support", lambda: "bubblewrap (bwrap) is not installed")
    server = record({"net": "none"})
    with pytest.raises(ServerStartFailed, match=r"its sandbox cannot run here: bubblewrap \(bwrap\) is not installed"):
        async with connections_sandbox.sandboxed(server, ["/usr/bin/node"], {}, {}, print):
            pass
    async with connections_sandbox.sandboxed(record(None), ["/usr/bin/node"], {"A": "1"}, {}, print) as launch:
        assert launch.argv == ["/usr/bin/node"] and launch.env == {"A": "1"}  # no sandbox: unchanged
