"""Picking a question writer / judge backend: the model settings (`VLMConfig`) and the factory
that builds the offline reader's backend or the model client and wraps it in the call cache.

It sits above both `reader/` and `vlm/`, the only place that knows both.
"""
