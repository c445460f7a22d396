"""A page's text: the stored text layer (written by render, read by every later stage) and what
can be read from it without a model (periods, dates, figures, the page's subject words).

metadata and vlm both read pages this way, so it sits below both of them.
"""
