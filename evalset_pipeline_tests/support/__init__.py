"""Test helpers shared by several test modules (a fake OpenAI-compatible VLM server, ...)."""
