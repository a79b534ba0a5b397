"""An agent loop with Anthropic's computer-use tool on a sandbay sandbox. The tool_use inputs go to
POST /act unchanged (sandbox.act_anthropic); its answer is the tool_result's content as is.

Run: SANDBAY_URL=… SANDBAY_API_KEY=… PYTHONPATH=sdk/python/src python3 examples/anthropic_agent.py
The model is scripted here (no network); with the `anthropic` package, `call_model` becomes:
    client.beta.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=messages,
        tools=[{"type": "computer_20250124", "name": "computer",
                "display_width_px": 1280, "display_height_px": 800}],
        betas=["computer-use-2025-01-24"])
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from sandbay import Client
from notes_setup import open_notes, read_answer

Json = Dict[str, Any]


def scripted_model(target: Tuple[int, int]) -> Callable[[List[Json]], Json]:
    """A stand-in for the Messages API: a fixed sequence of computer tool calls, then a final answer."""
    script: List[Json] = [
        {"action": "screenshot"},
        {"action": "left_click", "coordinate": list(target)},
        {"action": "type", "text": "hello from claude (python)"},
        {"action": "key", "text": "Return"},
    ]
    steps = iter(enumerate(script, 1))

    def call(messages: List[Json]) -> Json:
        step = next(steps, None)
        if step is None:
            return {"stop_reason": "end_turn", "content": [{"type": "text", "text": "Done: the line is saved."}]}
        n, tool_input = step
        return {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "computer", "input": tool_input}]}

    return call


def main() -> None:
    client = Client()  # SANDBAY_API_KEY and SANDBAY_URL from the environment
    with client.create() as sandbox:  # ephemeral: deleted when the block ends
        call_model = scripted_model(open_notes(sandbox))
        messages: List[Json] = [{"role": "user", "content": 'Type "hello from claude (python)" into the notes terminal and press Return.'}]
        for _ in range(20):
            response = call_model(messages)
            messages.append({"role": "assistant", "content": response["content"]})
            if response["stop_reason"] != "tool_use":
                break
            results: List[Json] = []
            for block in response["content"]:
                if block["type"] != "tool_use":
                    continue
                result = sandbox.act_anthropic(block["input"])
                results.append({"type": "tool_result", "tool_use_id": block["id"], "content": result["content"]})
                print(f"{block['input']['action']} → {', '.join(c['type'] for c in result['content'])}")
            messages.append({"role": "user", "content": results})
        print(f"answer: {read_answer(sandbox)}")


if __name__ == "__main__":
    main()
