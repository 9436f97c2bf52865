"""Harness for the end-to-end tests: a fake Anthropic Messages API, the TLS page
server, a network-namespace runner for the real Claude Code CLI, and readers
for what the CLI prints.

Everything here is standard library so that the sandboxed wrapper process can
run it with nothing but the interpreter.
"""
