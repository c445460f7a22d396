"""Exports are read from published golden sets: the golden storage fixtures serve here too."""

from evalset_pipeline_tests.core.golden.conftest import data_dir, draft, paths  # noqa: F401
