"""``.mcpb`` bundles built to the manifest spec: reading, the form, overrides, safe unpack, signatures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from elftia_desktop.registry.bundle import read_bundle
from elftia_desktop.registry.bundle_plan import plan_bundle, unpack
from elftia_desktop.registry.errors import BundleError, InputsMissing
from tests.registry.mcpb_builder import build_bundle, make_certificate, manifest, sign_bundle, zip_bytes


@pytest.mark.parametrize("version", ["0.1", "0.2", "0.3", "0.4"])
def test_every_manifest_version_is_read(tmp_path: Path, version: str) -> None:
    bundle = read_bundle(build_bundle(tmp_path / "b.mcpb", manifest(version)))
    assert bundle.manifest.manifest_version == version
    assert bundle.manifest.author.name == "Ada Example"
    assert [t.name for t in bundle.manifest.tools] == ["whoami"]
    assert bundle.signature.state == "unsigned"


def test_user_config_form_and_launch(tmp_path: Path) -> None:
    plan = plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb")), tmp_path / "unpacked")
    fields = {f.key: f for f in plan.fields}
    assert fields["api_key"].secret and fields["api_key"].required
    assert fields["folders"].multiple and fields["folders"].default == f"{Path.home()}/notes"
    server = plan.to_input("notes", {"api_key": "sk-bundle", "folders": "/data/a\n/data/b"})
    folder = str(tmp_path / "unpacked")
    assert server.config.command == sys.executable
    assert server.config.args == [f"{folder}/server/main.py", "/data/a", "/data/b"]
    assert server.config.env == {"API_KEY": "sk-bundle", "PYTHONUNBUFFERED": "1"}
    assert server.secret_keys == ["API_KEY"] and server.is_trusted is False
    assert server.install_source == "bundle"
    assert server.registry_origin is not None and "api_key" not in server.registry_origin.inputs
    with pytest.raises(InputsMissing, match="api_key"):
        plan.to_input("notes", {})
    assert plan.preview() == f"{sys.executable} {folder}/server/main.py {Path.home()}/notes"
    assert plan.preview({"folders": "/x,/y"}) == f"{sys.executable} {folder}/server/main.py /x /y"


def test_platform_overrides_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import elftia_desktop.registry.bundle_plan as bundle_plan

    monkeypatch.setattr(bundle_plan, "current_platform", lambda: "win32")
    plan = plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb")), tmp_path / "u")
    assert plan.to_input("n", {"api_key": "x"}).config.command == "python.exe"


def test_incompatible_platform_is_refused(tmp_path: Path) -> None:
    data = manifest(compatibility={"platforms": ["plan9"]})
    with pytest.raises(BundleError, match=r"b.mcpb is made for plan9; this computer runs"):
        plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb", data)))


def test_sensitive_value_on_the_command_line_is_refused(tmp_path: Path) -> None:
    data = manifest()
    data["server"]["mcp_config"]["args"] = ["--key", "${user_config.api_key}"]
    plan = plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb", data)), tmp_path / "u")
    with pytest.raises(BundleError, match="sensitive setting is passed on the command line"):
        plan.to_input("n", {"api_key": "x"})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"just text, not a zip", r"x.mcpb is not a .mcpb bundle: it is not a zip file"),
        (zip_bytes({"../evil.py": "x", "manifest.json": "{}"}), r"entry '../evil.py' points outside the bundle folder"),
        (zip_bytes({"/etc/evil": "x"}), r"entry '/etc/evil' points outside the bundle folder"),
        (zip_bytes({"readme.txt": "x"}), r"x.mcpb has no manifest.json at its top"),
        (zip_bytes({"manifest.json": '{"manifest_version": "0.3",'}), r"manifest.json is not valid JSON: .* line 1"),
        (zip_bytes({"manifest.json": '{"manifest_version": "9.0"}'}), r"manifest_version '9.0' is not supported"),
        (
            zip_bytes({"manifest.json": '{"manifest_version": "0.3", "name": "n", "version": "1"}'}),
            r"manifest.json: server",
        ),
    ],
)
def test_bad_bundles_are_named_and_nothing_is_written(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.mcpb"
    path.write_bytes(content)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(BundleError, match=message):
        plan_bundle(read_bundle(path), tmp_path / "unpacked")
    assert sorted(tmp_path.rglob("*")) == before


def test_unpack_is_all_or_nothing(tmp_path: Path) -> None:
    plan = plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb")), tmp_path / "bundles" / "notes")
    folder = unpack(plan)
    assert (folder / "server" / "main.py").is_file() and (folder / "manifest.json").is_file()
    assert [p.name for p in (tmp_path / "bundles").iterdir()] == ["notes"]


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "link.mcpb"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", "{}")
        info = zipfile.ZipInfo("server/link")
        info.external_attr = 0o120777 << 16
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(BundleError, match=r"entry 'server/link' is a symbolic link"):
        read_bundle(path)


def test_signed_bundle_is_detected_and_checked(tmp_path: Path) -> None:
    path = build_bundle(tmp_path / "signed.mcpb")
    sign_bundle(path)
    bundle = read_bundle(path)
    assert bundle.signature.state == "untrusted"  # self-signed: valid signature, unknown signer
    assert bundle.signature.signer == "Ada Example Signing"
    assert "not trusted on this computer" in bundle.signature.text
    assert bundle.manifest.name == "bundled-notes"


def test_bundle_signed_by_a_trusted_authority_is_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography.hazmat.primitives import serialization

    authority = make_certificate("Example Root CA", ca=True)
    trusted = tmp_path / "trusted.pem"
    trusted.write_bytes(authority[0].public_bytes(serialization.Encoding.PEM))
    monkeypatch.setenv("SSL_CERT_FILE", str(trusted))  # openssl's default trust store for this test
    path = build_bundle(tmp_path / "signed.mcpb")
    sign_bundle(path, "Ada Example Publisher", issuer=authority)
    signature = read_bundle(path).signature
    assert (signature.state, signature.signer) == ("verified", "Ada Example Publisher")
    assert signature.text == "Signed by Ada Example Publisher (verified)"


def test_tampered_signed_bundle_is_invalid(tmp_path: Path) -> None:
    signed = build_bundle(tmp_path / "signed.mcpb")
    size = signed.stat().st_size
    sign_bundle(signed)
    block = signed.read_bytes()[size:]
    changed = build_bundle(tmp_path / "changed.mcpb", manifest(description="changed after signing"))
    changed.write_bytes(changed.read_bytes() + block)  # the signature of another content
    bundle = read_bundle(changed)
    assert bundle.signature.state == "invalid"
    assert "does not match the bundle's content" in bundle.signature.text


@pytest.mark.skipif(sys.platform == "win32", reason="the executable bit is POSIX")
def test_unpacked_binary_is_executable(tmp_path: Path) -> None:
    data = manifest(server={"type": "binary", "entry_point": "bin/server"})
    plan = plan_bundle(
        read_bundle(build_bundle(tmp_path / "b.mcpb", data, {"bin/server": "#!/bin/sh\n"})), tmp_path / "u"
    )
    folder = unpack(plan)
    assert os.access(folder / "bin" / "server", os.X_OK)
    assert plan.to_input("bin", {"api_key": "x"}).config.command == f"{folder}/bin/server"


def test_runtime_requirements_are_checked(tmp_path: Path) -> None:
    import asyncio

    from elftia_desktop.deps.checker import DependencyChecker
    from elftia_desktop.registry.install import bundle_runtime_problems

    wanted = {"python": ">=99.0", "uv": ">=0.1"}
    data = manifest(compatibility={"platforms": ["linux", "darwin", "win32"], "runtimes": wanted})
    plan = plan_bundle(read_bundle(build_bundle(tmp_path / "b.mcpb", data)), tmp_path / "u")
    checker = DependencyChecker(path="/usr/bin:/bin", tools_dir=tmp_path / "no-tools")
    problems = asyncio.run(bundle_runtime_problems(plan, checker))
    assert problems[0].startswith("needs python >=99.0; this computer has 3.")
    assert problems[1] == "needs uv >=0.1, which is not installed"
    assert (
        asyncio.run(bundle_runtime_problems(plan_bundle(read_bundle(build_bundle(tmp_path / "c.mcpb"))), checker)) == []
    )
