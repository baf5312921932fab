#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Ask `wasinn serve --openai` a question with PyPI's openai client, and print the answer as it streams.

    python examples/openai_chat.py [BASE_URL] [QUESTION]

BASE_URL is the API's URL that serve prints (default http://127.0.0.1:8080/v1); the model is the
first the server lists. A server started with --api-key needs OPENAI_API_KEY set to that key.
scripts/setup.sh installs the client in .deps/venv (`pip install openai` elsewhere).
"""
import os
import sys

from openai import OpenAI

base_url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/v1"
question = sys.argv[2] if len(sys.argv) > 2 else "What is WebAssembly? Answer in one sentence."
client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "none"))
model = client.models.list().data[0].id
print(f"{model}: ", end="", flush=True)
stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": question}],
                                        max_tokens=200, stream=True)
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print(chunk.choices[0].delta.content, end="", flush=True)
print()
