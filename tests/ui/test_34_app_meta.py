"""Issue 34 (Apps): what a view declares, read without trusting the server (policy, HTML, URIs)."""

from __future__ import annotations

import base64

import pytest

from elftia_desktop.bridge.results_explore import ResourceContent, ResourceRead
from elftia_desktop.ui.apps.meta import (
    APP_MIME_TYPE,
    ViewPolicy,
    content_security_policy,
    declared_origins,
    resource_uri_of,
    view_content,
    view_html,
    visible_to_app,
    with_policy,
)


def read_of(*contents: ResourceContent) -> ResourceRead:
    return ResourceRead(contents, {"contents": [c.as_json() for c in contents]})


def app_content(uri: str, mime: str | None, text: str | None = None, blob: str | None = None) -> ResourceContent:
    return ResourceContent(uri=uri, mime_type=mime, text=text, blob=blob, meta={})


def directives(policy: str) -> dict[str, str]:
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in policy.split("; ")}


def test_without_a_csp_the_view_gets_no_network_and_no_frames() -> None:
    policy = directives(content_security_policy(None))
    assert policy["default-src"] == "'none'"
    assert policy["connect-src"] == "'none'" and policy["frame-src"] == "'none'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'self'"
    assert policy["img-src"] == "'self' data:"


def test_declared_origins_are_allowed_and_anything_else_is_dropped() -> None:
    csp = {
        "connectDomains": ["https://api.example.com", "https://evil.example; script-src *", "*", "wss://live.example"],
        "resourceDomains": ["https://*.cdn.example/", "javascript:alert(1)", 7],
    }
    policy = directives(content_security_policy(csp))
    assert policy["connect-src"] == "https://api.example.com wss://live.example"
    assert policy["script-src"] == "'self' 'unsafe-inline' https://*.cdn.example"
    assert policy["frame-src"] == "'none'"
    assert declared_origins(csp, "connectDomains")[1] == ["https://evil.example; script-src *", "*"]
    assert declared_origins(csp, "resourceDomains")[1] == ["javascript:alert(1)", "7"]
    policy_of = ViewPolicy.of(csp)
    assert policy_of.connect == ("https://api.example.com", "wss://live.example") and policy_of.frames == ()
    assert policy_of.dropped == ("https://evil.example; script-src *", "*", "javascript:alert(1)", "7")


def test_the_policy_comes_before_anything_of_the_view() -> None:
    document = "<!DOCTYPE html><html><head><script>fetch('https://x.example')</script></head></html>"
    shielded = with_policy(document, "default-src 'none'")
    assert shielded.startswith('<!DOCTYPE html><meta http-equiv="Content-Security-Policy"')
    assert shielded.index("Content-Security-Policy") < shielded.index("<script>")
    assert with_policy("<p>hi", "a 'b'").startswith(
        '<!doctype html><meta http-equiv="Content-Security-Policy" content="a &#x27;b&#x27;">'
    )


def test_the_view_content_must_be_an_app() -> None:
    uri = "ui://v/index.html"
    good = read_of(app_content(uri, APP_MIME_TYPE, blob=base64.b64encode(b"<p>ok").decode()))
    assert view_html(view_content(good, uri)) == "<p>ok"
    with pytest.raises(ValueError, match="mimeType is 'text/html'"):
        view_content(read_of(app_content(uri, "text/html", text="<p>")), uri)
    with pytest.raises(ValueError, match="no contents"):
        view_content(read_of(), uri)
    with pytest.raises(ValueError, match="neither text nor blob"):
        view_html(app_content(uri, APP_MIME_TYPE))


def test_which_tools_have_a_view_and_which_a_view_may_call() -> None:
    assert resource_uri_of({"_meta": {"ui": {"resourceUri": "ui://a/b"}}}) == "ui://a/b"
    assert resource_uri_of({"_meta": {"ui/resourceUri": "ui://a/b"}}) == "ui://a/b"  # the deprecated flat key
    assert resource_uri_of({"_meta": {"ui": {"resourceUri": "https://a/b"}}}) is None
    assert resource_uri_of({"name": "plain"}) is None
    assert visible_to_app({"name": "plain"}) and visible_to_app({"_meta": {"ui": {"visibility": ["app"]}}})
    assert not visible_to_app({"_meta": {"ui": {"visibility": ["model"]}}})
