"""The hooks' core: which research run is active, and what each hook decides.

`python -m web_research.guard EVENT` runs the handler of one event; everything it
decides is computed by small pure modules here so that it can be tested directly:

  registry      the per-session run record under ${CLAUDE_PLUGIN_DATA}, with locking
  commandline   strict recognition of the plugin's own command lines
  briefs_match  which rendered brief a researcher prompt is (by hash)
  dispatch      the researcher cap and the brief check for `Agent` calls
  writescope    which path a write tool call targets
  findings_gate whether a researcher's reply holds usable findings
  stopgate      whether the main agent may stop once report.md exists
  events        which module handles a hook event (only that one is imported)
  context       what the handlers share: the invocation, the active run, locked_run
  pre_tool_use, post_tool_use, subagent_start, subagent_stop, stop,
  session_start, session_end
                one handler per hook event, named after it: payload in, decision out
  output        the JSON shapes Claude Code reads from a hook

Nothing here imports YAML, jsonschema or the verifier at module level: a hook
pays for those only when a run is active and the decision needs them.
"""
