"""Tandem's end-to-end browser tests, a package so that its test modules may share
basenames with pytests/integration (test_undo.py) when both are run together."""
