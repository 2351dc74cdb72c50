"""Issue 13: calls with nested children, as each provider returns them under the converted names, reach the server.

The tools are the recursive test server's (``tests/servers/recursive.py``, in memory through the
``memory_servers`` seam, schemas from pydantic); the model's responses are built with the providers'
SDK types (imported where used, not by every xdist worker that collects this module); the server
validates every call with the same pydantic model and answers with what it received.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import TypeAdapter

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.engine.completion import CompletionService, PreparedRequest
from elftia_desktop.tools.loader import convert_tools
from tests.servers.recursive import Tree

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("memory_servers")]

SERVER = Path(__file__).parents[1] / "servers" / "recursive.py"
TREE = {"name": "root", "children": [{"name": "a", "size": 2, "children": [{"name": "b", "size": 1}]}, {"name": "c"}]}
"""Three levels deep (within what Gemini's inlined schema describes), four nodes."""
EXPR = {"op": "+", "left": 1, "right": {"op": "*", "left": 2, "right": {"op": "-", "left": 5, "right": 3}}}


async def _completion(service: McpService) -> CompletionService:
    server = McpServerInput(
        name="recursive", type="stdio", config={"command": sys.executable, "args": [str(SERVER)]}, is_trusted=True
    )
    assert (await servers.add(service, server)).success
    return CompletionService(service)


def _name(prepared: PreparedRequest, tool_name: str) -> str:
    [name] = [n for n, ref in prepared.name_map.items() if ref.tool_name == tool_name]
    return name


def _received(text: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(text)
    return answer


def _openai(*calls: tuple[str, str, dict[str, Any]]) -> ChatCompletion:
    """A Chat Completions response whose message calls ``(id, name, arguments)``."""
    from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion import ChatCompletionMessage, Choice
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    tool_calls = [
        ChatCompletionMessageFunctionToolCall(
            id=cid, type="function", function=Function(name=n, arguments=json.dumps(a))
        )
        for cid, n, a in calls
    ]
    message = ChatCompletionMessage(role="assistant", content=None, tool_calls=tool_calls)
    choice = Choice(index=0, finish_reason="tool_calls", message=message)
    return ChatCompletion(id="c", choices=[choice], created=0, model="gpt-test", object="chat.completion")


async def test_openai_strict_nested_tree_with_forced_nulls(service: McpService) -> None:
    completion = await _completion(service)
    prepared = await completion.prepare("openai", "gpt-test", [], strict=True)
    tree = _name(prepared, "tree")
    # What a strict model sends: every property, the optional ones it does not use as null.
    args = {"name": "root", "size": None, "children": [
        {"name": "a", "size": 2, "children": [{"name": "b", "size": 1, "children": None}]},
        {"name": "c", "size": None, "children": None}]}  # fmt: skip
    [message] = await completion.answer_tool_calls(prepared, _openai(("t1", tree, args)))
    answer = _received(message["content"])
    assert answer["received"] == Tree.model_validate(TREE).model_dump()
    assert (answer["nodes"], answer["depth"]) == (4, 3)


async def test_openai_responses_nested_expression(service: McpService) -> None:
    from openai.types.responses import Response, ResponseFunctionToolCall

    completion = await _completion(service)
    prepared = await completion.prepare("openai-responses", "gpt-test", [])
    evaluate = _name(prepared, "evaluate")
    call = ResponseFunctionToolCall(type="function_call", call_id="e1", name=evaluate, arguments=json.dumps(EXPR))
    response = Response(id="r", created_at=0, model="gpt-test", object="response", output=[call],
                        parallel_tool_calls=True, tool_choice="auto", tools=[])  # fmt: skip
    [item] = await completion.answer_tool_calls(prepared, response)
    assert _received(item["output"])["value"] == 5


async def test_anthropic_nested_tree(service: McpService) -> None:
    import anthropic.types as at

    completion = await _completion(service)
    prepared = await completion.prepare("anthropic", "claude-test", [])
    tree = _name(prepared, "tree")
    [schema] = [t["input_schema"] for t in prepared.payload["tools"] if t["name"] == tree]
    assert set(schema["properties"]) == {"name", "size", "children"}
    message = at.Message(
        id="m", type="message", role="assistant", model="claude-test", stop_reason="tool_use",
        content=[at.ToolUseBlock(type="tool_use", id="u1", name=tree, input=TREE)],
        usage=at.Usage(input_tokens=1, output_tokens=1),
    )  # fmt: skip
    [user] = await completion.answer_tool_calls(prepared, message)
    [result] = user["content"]
    assert "is_error" not in result
    assert _received(result["content"])["nodes"] == 4


@pytest.mark.parametrize("json_schema", [False, True])
async def test_gemini_nested_tree_and_renamed_parameters(service: McpService, json_schema: bool) -> None:
    from google.genai import types as gt

    completion = await _completion(service)
    prepared = await completion.prepare("gemini", "gemini-test", [], gemini_json_schema=json_schema)
    gt.Tool.model_validate(prepared.payload["tools"][0])
    tree, evaluate, upload = (_name(prepared, n) for n in ("tree", "evaluate", "upload"))
    key = "parametersJsonSchema" if json_schema else "parameters"
    [declaration] = [d for d in prepared.payload["tools"][0]["functionDeclarations"] if d["name"] == upload]
    # parameters: names Gemini rejects are renamed, the free-form map JSON-encoded; parametersJsonSchema keeps both.
    sent = (
        {"file-path": "/tmp/x", "2fa code": "123", "$meta": {"k": "v"}}
        if json_schema
        else {"file_path": "/tmp/x", "_2fa_code": "123", "_meta": '{"k": "v"}'}
    )
    assert set(declaration[key]["properties"]) == set(sent)
    # The model calls with the names it was given; the server must get the ones it declared.
    calls = [(tree, TREE), (evaluate, EXPR), (upload, sent)]
    parts = [gt.Part(function_call=gt.FunctionCall(id=f"g{i}", name=n, args=a)) for i, (n, a) in enumerate(calls)]
    response = gt.GenerateContentResponse(candidates=[gt.Candidate(content=gt.Content(role="model", parts=parts))])
    [content] = await completion.answer_tool_calls(prepared, response)
    answers = [part["functionResponse"]["response"] for part in content["parts"]]
    assert all("result" in a for a in answers), answers
    tree_answer, expr_answer, upload_answer = (_received(a["result"]) for a in answers)
    assert tree_answer["received"] == Tree.model_validate(TREE).model_dump()
    assert expr_answer["value"] == 5
    assert upload_answer["received"] == {"file-path": "/tmp/x", "2fa code": "123", "$meta": {"k": "v"}}


async def test_a_wrapped_input_is_unwrapped_before_the_call(service: McpService) -> None:
    import anthropic.types as at

    """A schema that is not an object (a saved list's ``anyOf`` of the tree and a string) is wrapped as ``value``."""
    completion = await _completion(service)
    prepared = await completion.prepare("anthropic", "claude-test", [])
    server_id = prepared.name_map[_name(prepared, "tree")].server_id
    either = TypeAdapter(Tree | str).json_schema()
    conversion = convert_tools([{"name": "tree", "serverId": server_id, "inputSchema": either}], "anthropic")
    [tool] = conversion.payload
    assert tool["input_schema"]["required"] == ["value"]
    prepared.name_map, prepared.mcp_tools = conversion.name_map, []
    message = at.Message(
        id="m", type="message", role="assistant", model="claude-test", stop_reason="tool_use",
        content=[at.ToolUseBlock(type="tool_use", id="w1", name="tree", input={"value": TREE}),
                 at.ToolUseBlock(type="tool_use", id="w2", name="tree", input={"value": "just a name"})],
        usage=at.Usage(input_tokens=1, output_tokens=1),
    )  # fmt: skip
    [user] = await completion.answer_tool_calls(prepared, message)
    unwrapped, impossible = user["content"]
    assert _received(unwrapped["content"])["nodes"] == 4 and "is_error" not in unwrapped
    assert impossible["is_error"] is True and "MCP can only pass an object of arguments" in impossible["content"]
