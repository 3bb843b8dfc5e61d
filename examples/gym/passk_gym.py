"""A minimal client of passk's agent gym over HTTP (`passk serve --gym`), standard library only.

    gym = PasskGym("http://127.0.0.1:8787")
    observation = gym.reset("airline", "0")          # the customer's opening, the policy, the tools
    while not observation["done"]:
        observation = gym.step({"content": "How can I help?"})   # or {"tool_calls": [...]}
    print(observation["reward"])
    gym.close()
"""

import json
import urllib.error
import urllib.request


class GymError(Exception):
    """The server refused a call; `code` and the message say why (e.g. gym_sessions_full)."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class PasskGym:
    def __init__(self, base_url, timeout=120):
        self.base = base_url.rstrip("/") + "/api/gym"
        self.timeout = timeout
        self.session = None

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            answer = json.loads(error.read() or b"{}")
            raise GymError(error.code, answer.get("code"), answer.get("message")) from None

    def reset(self, domain, task_id, seed=0, solo=False):
        """Start an episode; returns the first observation (messages, policy, tools, done)."""
        body = {"domain": domain, "taskId": task_id, "seed": seed, "solo": solo}
        if self.session is None:
            answer = self._call("POST", "/sessions", body)
            self.session = answer["session"]
        else:
            answer = self._call("POST", f"/sessions/{self.session}/reset", body)
        return answer["observation"]

    def step(self, action):
        """Play the agent's move: {"content": text} or {"tool_calls": [{"name", "arguments"}]}."""
        return self._call("POST", f"/sessions/{self.session}/step", action)["observation"]

    def close(self):
        if self.session is not None:
            self._call("DELETE", f"/sessions/{self.session}")
            self.session = None
