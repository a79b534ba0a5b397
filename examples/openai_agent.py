"""An agent loop with OpenAI's computer-use tool on a sandbay sandbox. Each computer_call's `action`
goes to POST /act unchanged (sandbox.act_openai); its answer is the computer_call_output's `output`.

Run: SANDBAY_URL=… SANDBAY_API_KEY=… PYTHONPATH=sdk/python/src python3 examples/openai_agent.py
The model is scripted here (no network); with the `openai` package, `call_model` becomes:
    client.responses.create(model="computer-use-preview", truncation="auto", input=items,
        previous_response_id=previous_id,
        tools=[{"type": "computer_use_preview", "display_width": 1280, "display_height": 800,
                "environment": "linux"}])
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from sandbay import Client
from notes_setup import open_notes, read_answer

Json = Dict[str, Any]


def scripted_model(target: Tuple[int, int]) -> Callable[[List[Json]], Json]:
    """A stand-in for the Responses API: a fixed sequence of computer calls, then a message."""
    script: List[Json] = [
        {"type": "screenshot"},
        {"type": "click", "x": target[0], "y": target[1], "button": "left"},
        {"type": "type", "text": "hello from openai (python)"},
        {"type": "keypress", "keys": ["ENTER"]},
    ]
    steps = iter(enumerate(script, 1))

    def call(items: List[Json]) -> Json:
        step = next(steps, None)
        if step is None:
            return {"output": [{"type": "message", "role": "assistant", "content": "Done: the line is saved."}]}
        n, action = step
        return {"output": [{"type": "computer_call", "call_id": f"call_{n}", "action": action, "pending_safety_checks": []}]}

    return call


def main() -> None:
    client = Client()  # SANDBAY_API_KEY and SANDBAY_URL from the environment
    with client.create() as sandbox:  # ephemeral: deleted when the block ends
        call_model = scripted_model(open_notes(sandbox))
        items: List[Json] = [{"role": "user", "content": 'Type "hello from openai (python)" into the notes terminal and press Return.'}]
        for _ in range(20):
            calls = [i for i in call_model(items)["output"] if i["type"] == "computer_call"]
            if not calls:
                break
            items = []
            for call in calls:
                screenshot = sandbox.act_openai(call["action"])
                items.append({"type": "computer_call_output", "call_id": call["call_id"], "output": screenshot})
                print(f"{call['action']['type']} → {screenshot['type']}")
        print(f"answer: {read_answer(sandbox)}")


if __name__ == "__main__":
    main()
