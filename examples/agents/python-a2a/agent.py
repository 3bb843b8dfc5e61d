"""A customer-service agent in plain Python (standard library only), testable with passk.

It calls a model over an OpenAI-compatible Chat Completions endpoint and the conversation's tools over
MCP (Streamable HTTP, JSON-RPC over urllib), and it speaks both protocols passk drives agents with:

  * A2A (Agent2Agent v1.0, JSON-RPC binding, no streaming): GET /.well-known/agent-card.json and
    POST / with method "SendMessage" (a message marked metadata["passk/end"] ends a conversation)
                                              ->  passk run --agent-llm a2a:http://127.0.0.1:PORT
  * passk's plain HTTP session protocol: POST /conversations, POST /conversations/{id}/messages,
    DELETE /conversations/{id}                ->  passk run --agent-llm http:http://127.0.0.1:PORT

Environment: OPENAI_BASE_URL (e.g. https://api.openai.com/v1), OPENAI_API_KEY, AGENT_MODEL.
Usage: python3 agent.py [--host 127.0.0.1] [--port 9999]   (--port 0 picks a free port; the first line
printed is the agent's URL).
"""

import argparse
import json
import os
import sys
import threading
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BASE_URL = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
API_KEY = os.environ.get("OPENAI_API_KEY", "")
MODEL = os.environ.get("AGENT_MODEL", "gpt-4.1-mini")
MAX_STEPS = 30  # model calls per customer message
MCP_PROTOCOL_VERSION = "2025-06-18"

INSTRUCTIONS = (
    "You are a customer service agent. Help the customer by following the policy below. "
    "Use the tools to look things up and to act; never invent information.\n\n<policy>\n{policy}\n</policy>"
)


class McpClient:
    """The smallest useful MCP client: JSON-RPC over Streamable HTTP (JSON or SSE answers)."""

    def __init__(self, url, token):
        self.url = url
        self.token = token
        self.next_id = 0
        self.version = None
        self.lock = threading.Lock()

    def request(self, method, params=None):
        with self.lock:
            self.next_id += 1
            request_id = self.next_id
        message = self._post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        if "error" in message:
            raise RuntimeError(f"MCP {method} failed: {message['error'].get('message')}")
        return message["result"]

    def notify(self, method):
        self._post({"jsonrpc": "2.0", "method": method})

    def initialize(self):
        result = self.request(
            "initialize",
            {
                "protocolVersion": MCP_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "python-a2a-example", "version": "1.0"},
            },
        )
        self.version = result["protocolVersion"]
        self.notify("notifications/initialized")
        return self.request("tools/list")["tools"]

    def call_tool(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "\n".join(part.get("text", "") for part in result.get("content", []) if part.get("type") == "text")
        return text

    def _post(self, body):
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.token}",
        }
        if self.version:
            headers["MCP-Protocol-Version"] = self.version
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=120) as response:
            content_type = response.headers.get("Content-Type", "")
            text = response.read().decode()
        if "id" not in body:
            return None  # a notification: 202, no body
        if content_type.startswith("text/event-stream"):
            for line in text.splitlines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("id") == body["id"]:
                        return message
            raise RuntimeError("MCP: the event stream held no answer")
        return json.loads(text)


def chat(messages, tools):
    """One Chat Completions call; returns the assistant message."""
    body = {"model": MODEL, "messages": messages, "temperature": 0}
    if tools:
        body["tools"] = tools
    request = urllib.request.Request(
        f"{BASE_URL}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read().decode())["choices"][0]["message"]


class Conversation:
    """One conversation: the model's messages so far and the conversation's MCP tools."""

    def __init__(self, policy, history, mcp):
        self.mcp = McpClient(mcp["url"], mcp["token"])
        self.tools = [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["inputSchema"]},
            }
            for t in self.mcp.initialize()
        ]
        self.messages = [{"role": "system", "content": INSTRUCTIONS.format(policy=policy)}]
        for message in history:
            self.messages.append(openai_message(message))
        self.lock = threading.Lock()

    def reply(self, text):
        """Answers one customer message, calling tools as the model asks."""
        with self.lock:
            self.messages.append({"role": "user", "content": text})
            for _ in range(MAX_STEPS):
                message = chat(self.messages, self.tools)
                calls = message.get("tool_calls") or []
                self.messages.append(
                    {"role": "assistant", "content": message.get("content"), **({"tool_calls": calls} if calls else {})}
                )
                if not calls:
                    return message.get("content") or ""
                for call in calls:
                    try:
                        arguments = json.loads(call["function"]["arguments"] or "{}")
                        result = self.mcp.call_tool(call["function"]["name"], arguments)
                    except (ValueError, RuntimeError, urllib.error.URLError) as error:
                        result = f"Error: {error}"
                    self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            return "I am sorry, I could not finish that. Could you say it again?"


def openai_message(message):
    """A message of passk's history as a Chat Completions message."""
    if message["role"] == "tool":
        return {"role": "tool", "tool_call_id": message["id"], "content": message.get("content") or ""}
    out = {"role": message["role"], "content": message.get("content")}
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
            for c in message["tool_calls"]
        ]
    return out


CONVERSATIONS = {}  # conversation id (HTTP) or A2A context id -> Conversation
CONVERSATIONS_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/.well-known/agent-card.json":
            return self.send_json(200, agent_card(self.server.url))
        self.send_json(404, {"error": "not found"})

    def do_POST(self):
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        except ValueError:
            return self.send_json(400, {"error": "the body is not JSON"})
        try:
            if self.path == "/":
                return self.send_json(200, a2a(body))
            if self.path == "/conversations":
                conversation_id = str(uuid.uuid4())
                conversation = Conversation(body["policy"], body.get("history", []), body["mcp"])
                with CONVERSATIONS_LOCK:
                    CONVERSATIONS[conversation_id] = conversation
                return self.send_json(201, {"id": conversation_id})
            parts = self.path.strip("/").split("/")
            if len(parts) == 3 and parts[0] == "conversations" and parts[2] == "messages":
                conversation = CONVERSATIONS.get(parts[1])
                if conversation is None:
                    return self.send_json(404, {"error": "no such conversation"})
                return self.send_json(200, {"content": conversation.reply(body["content"])})
            self.send_json(404, {"error": "not found"})
        except Exception as error:  # noqa: BLE001 - an example: report, never crash the server
            self.send_json(500, {"error": f"{type(error).__name__}: {error}"})

    def do_DELETE(self):
        parts = self.path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "conversations":
            with CONVERSATIONS_LOCK:
                CONVERSATIONS.pop(parts[1], None)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        self.send_json(404, {"error": "not found"})

    def send_json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # noqa: A002 - keep the default format: method and path only
        sys.stderr.write(f"{self.command} {self.path.split('?')[0]}\n")


def a2a(request):
    """One A2A JSON-RPC request: SendMessage answers with a message from the agent."""
    request_id = request.get("id")
    if request.get("method") != "SendMessage":
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
    message = request["params"]["message"]
    metadata = message.get("metadata") or {}
    context_id = message.get("contextId") or str(uuid.uuid4())
    if "passk/end" in metadata:  # the conversation is over: let go of it (the answer is not read)
        with CONVERSATIONS_LOCK:
            CONVERSATIONS.pop(context_id, None)
        reply = {"messageId": str(uuid.uuid4()), "contextId": context_id, "role": "ROLE_AGENT", "parts": [{"text": "Bye."}]}
        return {"jsonrpc": "2.0", "id": request_id, "result": {"message": reply}}
    with CONVERSATIONS_LOCK:
        conversation = CONVERSATIONS.get(context_id)
    if conversation is None:
        start = metadata.get("passk/start") or {}
        conversation = Conversation(start.get("policy", ""), start.get("history", []), metadata["passk/mcp"])
        with CONVERSATIONS_LOCK:
            CONVERSATIONS[context_id] = conversation
    text = "\n".join(part["text"] for part in message.get("parts", []) if "text" in part)
    answer = conversation.reply(text)
    reply = {"messageId": str(uuid.uuid4()), "contextId": context_id, "role": "ROLE_AGENT", "parts": [{"text": answer}]}
    return {"jsonrpc": "2.0", "id": request_id, "result": {"message": reply}}


def agent_card(url):
    return {
        "name": "python-a2a-example",
        "description": "A customer-service agent in plain Python, its tools over MCP.",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "customer-service", "name": "Customer service", "description": "Helps customers.", "tags": []}],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    options = parser.parse_args()
    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    server.url = f"http://{options.host}:{server.server_address[1]}/"
    print(server.url.rstrip("/"), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
