"""Play tasks through passk's HTTP gym with a policy, one JSON line per episode.

    python3 examples/gym/play.py --url http://127.0.0.1:8787 --domain airline --policy gold
    python3 examples/gym/play.py --url ... --domain retail --tasks 0,1,2 --policy random --seed 7

`gold` plays the task's gold actions (read from the server's task endpoint), the way passk's
`scripted:gold` agent does, so with the scripted customer it shows the best reward a task allows.
`random` calls random tools with empty arguments and says random things: a floor to beat.
"""

import argparse
import json
import random
import urllib.request

from passk_gym import PasskGym

ACTION_REQUEST = "Please do the following on your side:"


def get_json(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def gold_policy(task):
    """A generator of actions; send() it each observation's messages."""
    criteria = task.get("evaluation_criteria") or {}
    actions = criteria.get("actions") or []
    final = " ".join(criteria.get("communicate_info") or []) or "Done."
    position = 0
    calls = 0
    while position < len(actions):
        action = actions[position]
        if action.get("requestor", "assistant") == "assistant":
            calls += 1
            position += 1
            yield {"tool_calls": [{"id": f"gold_{calls}", "name": action["name"], "arguments": action["arguments"]}]}
        else:
            steps = []
            while position < len(actions) and actions[position].get("requestor") == "user":
                steps.append(f"{actions[position]['name']} {json.dumps(actions[position]['arguments'], separators=(',', ':'))}")
                position += 1
            # Wait for the customer to say they did it.
            yield {"content": f"{ACTION_REQUEST} {'; '.join(steps)}."}
    yield {"content": final}
    while True:
        yield {"content": "Is there anything else I can help you with?"}


def random_policy(tools, rng):
    while True:
        if rng.random() < 0.5 and tools:
            tool = rng.choice(tools)
            yield {"tool_calls": [{"name": tool["name"], "arguments": {}}]}
        else:
            yield {"content": rng.choice(["Could you tell me more?", "Let me check.", "Is there anything else?"])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--domain", required=True)
    parser.add_argument("--tasks", help="comma-separated task ids (default: every task of the domain)")
    parser.add_argument("--policy", choices=["gold", "random"], default="gold")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=200)
    args = parser.parse_args()
    base = args.url.rstrip("/")
    ids = args.tasks.split(",") if args.tasks else [t["id"] for t in get_json(f"{base}/api/domains/{args.domain}")["tasks"]]
    rng = random.Random(args.seed)
    gym = PasskGym(base)
    try:
        for task_id in ids:
            observation = gym.reset(args.domain, task_id, seed=args.seed)
            if args.policy == "gold":
                task = get_json(f"{base}/api/domains/{args.domain}/tasks/{urllib.request.quote(task_id, safe='')}")["task"]
                policy = gold_policy(task)
            else:
                policy = random_policy(observation["tools"], rng)
            steps = 0
            while not observation["done"] and steps < args.max_steps:
                observation = gym.step(next(policy))
                steps += 1
            print(json.dumps({
                "task": task_id,
                "reward": observation.get("reward"),
                "termination": observation.get("terminationReason"),
                "error": observation.get("error"),
                "steps": steps,
            }), flush=True)
    finally:
        gym.close()


if __name__ == "__main__":
    main()
