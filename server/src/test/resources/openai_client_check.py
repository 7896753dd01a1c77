"""Talks to a running jacap serve with the official openai package; prints one JSON object."""
import json
import sys

from openai import OpenAI

base, model = sys.argv[1], sys.argv[2]
client = OpenAI(base_url=base + "/v1", api_key="py-key")
out = {}

r = client.chat.completions.create(
    model=model,
    messages=[{"role": "user", "content": "Tell me about a cat."}],
    temperature=0,
    max_tokens=12,
    logprobs=True,
    top_logprobs=2,
)
out["chat"] = r.choices[0].message.content
out["chat_finish"] = r.choices[0].finish_reason
out["chat_usage"] = r.usage.completion_tokens
out["chat_logprobs"] = len(r.choices[0].logprobs.content)

pieces = []
for chunk in client.chat.completions.create(
    model=model,
    messages=[{"role": "user", "content": "Tell me about a cat."}],
    temperature=0,
    max_tokens=12,
    stream=True,
):
    if chunk.choices and chunk.choices[0].delta.content:
        pieces.append(chunk.choices[0].delta.content)
out["stream"] = "".join(pieces)
out["stream_pieces"] = len(pieces)

c = client.completions.create(model=model, prompt="Once upon a time", temperature=0, max_tokens=10)
out["completion"] = c.choices[0].text
out["models"] = [m.id for m in client.models.list()]
print(json.dumps(out))
