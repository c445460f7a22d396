"""The question writer / judge interface: the records a backend sees and returns (a page, its
document context, a written question, a judgment, a label) and the `VLMBackend` protocol.

The model client (`vlm/`) and the offline reader (`reader/`) both implement it, so it sits below
both; neither needs the other.
"""
