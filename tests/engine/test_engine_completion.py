"""CompletionService: request bodies with the tools, and tool calls from SDK response objects routed to real servers.

No network: the model's responses are built with the providers' SDK types (imported in the tests that
use them: each SDK costs an xdist worker that only collects this module up to a second); the tools run on real
MCP servers (the ``basic`` test server and the built-in clock, in this process on the SDK's in-memory
transport: the ``builtin_servers`` fixture) through the real McpService.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import TypeAdapter

from elftia_desktop.application import servers
from elftia_desktop.builtin_servers.launcher import builtin_command
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import Agent, McpMode, McpServerInput
from elftia_desktop.engine.completion import CompletionService, PreparedRequest
from tests.servers.serve_http import server_command

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("builtin_servers")]


async def _setup(service: McpService) -> CompletionService:
    command, args = builtin_command("clock")
    for name, argv in (("basic", server_command("basic")), ("clock", [command, *args])):
        server = McpServerInput(name=name, type="stdio", config={"command": argv[0], "args": argv[1:]}, is_trusted=True)
        assert (await servers.add(service, server)).success
    return CompletionService(service)


def _name(prepared: PreparedRequest, tool_name: str) -> str:
    """The provider name the request gave the MCP tool ``tool_name``."""
    [name] = [n for n, ref in prepared.name_map.items() if ref.tool_name == tool_name]
    return name


def _openai_response(*calls: tuple[str, str, str]) -> ChatCompletion:
    """A Chat Completions response whose message calls ``(id, name, arguments)``."""
    from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion import ChatCompletionMessage, Choice
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    tool_calls = [
        ChatCompletionMessageFunctionToolCall(id=cid, type="function", function=Function(name=name, arguments=args))
        for cid, name, args in calls
    ]
    message = ChatCompletionMessage(role="assistant", content=None, tool_calls=tool_calls)
    choice = Choice(index=0, finish_reason="tool_calls", message=message)
    return ChatCompletion(id="chatcmpl-1", choices=[choice], created=0, model="gpt-test", object="chat.completion")


async def test_openai_chat_request_and_tool_messages(service: McpService) -> None:
    from openai.types.chat import ChatCompletionToolMessageParam
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    completion = await _setup(service)
    prepared = await completion.prepare("openai", "gpt-test", [{"role": "user", "content": "hi"}], system="Be brief.")
    body = prepared.payload
    TypeAdapter(CompletionCreateParamsNonStreaming).validate_python(body)
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    names = {tool["function"]["name"] for tool in body["tools"]}
    echo, day = _name(prepared, "echo"), _name(prepared, "day_of_week")
    assert {echo, day} <= names

    response = _openai_response(
        ("call_a", echo, json.dumps({"text": "héllo"})), ("call_b", day, '{"day": "2024-02-29"}')
    )
    messages = await completion.answer_tool_calls(prepared, response)
    assert messages == [
        {"role": "tool", "tool_call_id": "call_a", "content": "héllo"},
        {"role": "tool", "tool_call_id": "call_b", "content": "Thursday"},
    ]
    for message in messages:
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(message)


async def test_openai_bad_arguments_and_unknown_names_are_error_results(service: McpService) -> None:
    completion = await _setup(service)
    prepared = await completion.prepare("openai", "gpt-test", [])
    echo = _name(prepared, "echo")
    response = _openai_response(("c1", echo, '{"text": "unterminated'), ("c2", "mcp__nowhere__x", "{}"))
    bad_json, unknown = await completion.answer_tool_calls(prepared, response)
    assert bad_json["tool_call_id"] == "c1"
    assert bad_json["content"].startswith(f"Error: tool {echo}: arguments are not valid JSON (Unterminated string")
    assert "column 10" in bad_json["content"]
    assert unknown["content"].startswith('Error: there is no tool named "mcp__nowhere__x" in this request')


async def test_openai_strict_mode_removes_the_nulls_it_forced_before_the_call(service: McpService) -> None:
    completion = await _setup(service)
    prepared = await completion.prepare("openai", "gpt-test", [], strict=True)
    add = _name(prepared, "add_to_date")
    [tool] = [t for t in prepared.payload["tools"] if t["function"]["name"] == add]
    assert tool["function"]["strict"] is True
    assert "years" in tool["function"]["parameters"]["required"]
    # What a strict model sends: every property, the unused optional ones as null.
    args = {"start": "2024-01-31", "months": 1, "timezone": "UTC"}
    args |= {k: None for k in ("years", "weeks", "days", "hours", "minutes", "seconds")}
    [message] = await completion.answer_tool_calls(prepared, _openai_response(("s1", add, json.dumps(args))))
    assert json.loads(message["content"])["datetime"] == "2024-02-29T00:00:00+00:00"
    # The same nulls in a request that was not strict: the call itself takes null for an optional
    # property that does not admit null as "omitted" (what the protocol issue settled), so it is answered too.
    loose = await completion.prepare("openai", "gpt-test", [], strict=False)
    [raw] = await completion.answer_tool_calls(loose, _openai_response(("s2", add, json.dumps(args))))
    assert json.loads(raw["content"])["datetime"] == "2024-02-29T00:00:00+00:00"


async def test_openai_responses_function_calls(service: McpService) -> None:
    from openai.types.responses import Response, ResponseFunctionToolCall
    from openai.types.responses.response_input_param import FunctionCallOutput

    completion = await _setup(service)
    prepared = await completion.prepare("openai-responses", "gpt-test", [{"role": "user", "content": "hi"}])
    assert all(tool["type"] == "function" and "strict" in tool for tool in prepared.payload["tools"])
    echo = _name(prepared, "echo")
    call = ResponseFunctionToolCall(type="function_call", call_id="fc_1", name=echo, arguments='{"text": "ok"}')
    response = Response(
        id="resp_1",
        created_at=0,
        model="gpt-test",
        object="response",
        output=[call],
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
    )
    [item] = await completion.answer_tool_calls(prepared, response)
    assert item == {"type": "function_call_output", "call_id": "fc_1", "output": "ok"}
    TypeAdapter(FunctionCallOutput).validate_python(item)


async def test_anthropic_tool_use_and_tool_result(service: McpService) -> None:
    import anthropic.types as at

    completion = await _setup(service)
    prepared = await completion.prepare("anthropic", "claude-test", [{"role": "user", "content": "hi"}], system="s")
    body = prepared.payload
    TypeAdapter(at.MessageCreateParams).validate_python(body)
    assert body["max_tokens"] > 0 and body["system"] == "s"
    assert all(set(tool) <= {"name", "description", "input_schema"} for tool in body["tools"])
    echo, now = _name(prepared, "echo"), _name(prepared, "get_current_time")
    message = at.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-test",
        content=[
            at.TextBlock(type="text", text="Let me check."),
            at.ToolUseBlock(type="tool_use", id="toolu_1", name=echo, input={"text": "x"}),
            at.ToolUseBlock(type="tool_use", id="toolu_2", name=now, input={"timezone": "Nowhere/Land"}),
        ],
        stop_reason="tool_use",
        usage=at.Usage(input_tokens=1, output_tokens=1),
    )
    [user] = await completion.answer_tool_calls(prepared, message)
    TypeAdapter(at.MessageParam).validate_python(user)
    ok, failed = user["content"]
    assert user["role"] == "user"
    assert ok == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    assert failed["tool_use_id"] == "toolu_2" and failed["is_error"] is True
    assert "unknown time zone 'Nowhere/Land'" in failed["content"]


async def test_gemini_function_call_and_function_response(service: McpService) -> None:
    from google.genai import types as gt

    completion = await _setup(service)
    prepared = await completion.prepare("gemini", "gemini-test", [{"role": "user", "parts": [{"text": "hi"}]}])
    body = prepared.payload
    [tools] = body["tools"]
    gt.Tool.model_validate(tools)
    echo, day = _name(prepared, "echo"), _name(prepared, "day_of_week")
    response = gt.GenerateContentResponse(
        candidates=[
            gt.Candidate(
                content=gt.Content(
                    role="model",
                    parts=[
                        gt.Part(function_call=gt.FunctionCall(id="g1", name=echo, args={"text": "hey"})),
                        gt.Part(function_call=gt.FunctionCall(name=day, args={"day": "someday"})),
                    ],
                )
            )
        ]
    )
    [content] = await completion.answer_tool_calls(prepared, response)
    parsed = gt.Content.model_validate(content)
    assert parsed.role == "user"
    assert parsed.parts is not None
    first, second = (part.function_response for part in parsed.parts)
    assert first is not None and second is not None
    assert (first.id, first.name, first.response) == ("g1", echo, {"result": "hey"})
    assert second.name == day and second.id is None
    assert second.response is not None and "is not a date" in second.response["error"]


async def test_gemini_json_schema_variant_and_no_tools(service: McpService) -> None:
    completion = await _setup(service)
    prepared = await completion.prepare("gemini", "gemini-test", [], gemini_json_schema=True)
    declarations: list[dict[str, Any]] = prepared.payload["tools"][0]["functionDeclarations"]
    assert all("parametersJsonSchema" in d or "parameters" not in d for d in declarations)
    off = Agent(name="off", mcp_mode=McpMode.DISABLED)
    none = await completion.prepare("anthropic", "claude-test", [], agent=off)
    assert "tools" not in none.payload
    assert await completion.answer_tool_calls(none, {"content": [{"type": "text", "text": "done"}]}) == []
    with pytest.raises(ValueError, match="unknown provider 'mistral'"):
        await completion.prepare("mistral", "m", [])
