"""A small agent program for the harness tests: it speaks OpenAI Chat Completions to its
base URL, runs the ``bash`` calls it gets back and stops when a reply has none. Its first
argument picks a misbehaviour instead (hang, flood, no call, malformed request, network, a
daemon left behind). Standard library only: it runs in a box's own Python."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a shell command.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}


def post(body):
    request = urllib.request.Request(
        os.environ["AGENT_BASE_URL"] + "/v1/chat/completions",
        data=body if isinstance(body, bytes) else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)


def agent(instruction):
    messages = [{"role": "system", "content": "You are a tiny agent."}, {"role": "user", "content": instruction}]
    while True:
        reply = post({"model": os.environ["AGENT_MODEL"], "messages": messages, "tools": [BASH]})
        message = reply["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            print("final:", message.get("content"))
            return 0
        for call in message["tool_calls"]:
            command = json.loads(call["function"]["arguments"])["command"]
            done = subprocess.run(["bash", "-c", command], check=False, capture_output=True, text=True)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": done.stdout + done.stderr})


def main():
    how = sys.argv[1]
    with open(sys.argv[2]) as handle:
        instruction = handle.read()
    if how == "agent":
        return agent(instruction)
    if how == "hang":
        time.sleep(10_000)
    if how == "hang-later":
        post({"model": "m", "messages": [{"role": "user", "content": instruction}]})
        time.sleep(10_000)
    if how == "flood":
        chunk = "x" * 65536 + "\n"
        while True:
            sys.stdout.write(chunk)
    if how == "nocall":
        print("nothing to ask")
        return 0
    if how == "malformed":
        for body in (b"{not json", b'{"messages": 3}'):
            try:
                post(body)
            except urllib.error.HTTPError as e:
                print("refused:", e.code, e.read()[:200].decode())
        return 3
    if how == "network":
        for address in (("1.1.1.1", 443), ("10.0.2.2", 80), ("192.168.0.1", 80)):
            try:
                socket.create_connection(address, timeout=3).close()
                print("reached", address)
            except OSError as e:
                print("refused", address, e.errno)
        return agent(instruction)
    if how == "connections":  # (hundreds held open: the proxy serves a few, closes the rest)
        held = [
            socket.create_connection(("127.0.0.1", int(os.environ["AGENT_BASE_URL"].rsplit(":", 1)[1])))
            for _ in range(200)
        ]
        time.sleep(1)
        closed = 0
        for conn in held:
            conn.settimeout(0.01)
            try:
                closed += conn.recv(1) == b""
            except OSError:
                continue
        print("closed", closed)
        return 0
    if how == "daemon":
        subprocess.Popen(["sleep", "10000"], start_new_session=True)
        open("/tmp/daemon-started", "w").close()
        return agent(instruction)
    raise SystemExit(f"unknown behaviour {how}")


if __name__ == "__main__":
    sys.exit(main())
