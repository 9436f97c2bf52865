"""The hooks: `python -m web_research.guard EVENT` decides one hook event.

  __main__, runner  the entry: limits, stdin, the handler of EVENT, every failure judged
  adapter           payload checked -> typed event (events); decision -> the client's JSON
  pre_tool_use, post_tool_use, subagent_start, subagent_stop, stop, session_start, session_end
                    one handler per event, named after it: the run record read once, then
                    the rules for the tool (a table), then the effects
  rules/            pure rules, one module per concern (room, after_abandon, dispatch, budgets,
                    stop_gate) and the decisions they return: no file, clock or process
  effects/          what follows a decision: seals and the ledger, findings stubs and the
                    plugin's writes, metrics, the person's ending
  registry, context the session's run record (locked), and what the handlers share
  commandline, briefs_match, writescope, findings_gate, checker_gate, budgets
                    reading our command lines, briefs and write targets, the gates that read
                    run files, and the budgets' ledger adapter

A hook imports only its own event's handler; YAML, jsonschema and the verifier load only in
the hooks whose decision reads run files (hooks/README.md).
"""
