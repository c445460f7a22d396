"""The model client: the OpenAI-compatible backend, its prompts and reply parsing, and the call cache."""
