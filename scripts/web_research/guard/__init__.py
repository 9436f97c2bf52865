"""The hooks: `python -m web_research.guard EVENT` decides one hook event.

  __main__, adapter  the entry and the one adapter: limits, stdin, payload checked -> typed
                     event (events), the handler of EVENT, decision -> the client's JSON,
                     every failure judged and logged
  state              the run's state: the session's record read once into typed values, its
                     file and lock, and the invocation (Context) the handlers receive
  handlers/          one handler per event, named after it (pre_tool_use, post_tool_use,
                     subagent_start, subagent_stop, stop, session_start, session_end): the rules
                     for the tool (a table), then the effects; and handlers of a kind of call
                     (state.Context.kind: pre_agent, pre_checker, pre_start, pre_plan, post_agent,
                     post_start, post_briefs, idle, stop_wait), so that what only those calls need
                     (the checker, the Markdown parser, start's checks) stays out of the others
  rules/             pure rules, one module per concern (room, after_abandon, dispatch,
                     checker_gate, budgets, stop_gate) and the decisions they return: no
                     file, clock or process
  effects/           what follows a decision: seals and the ledger, findings stubs and the
                     plugin's writes, metrics, the person's ending
  commandline, briefs_match, findings_gate, budgets
                     reading our command lines; briefs and which brief a subagent works on;
                     the findings gate that reads run files; the budgets' ledger adapter

Imports sit at the top of every module; the entry's choice of handler is the one lazy import,
so a hook imports only the handler it runs (hooks/README.md, docs/hooks/cost.md).
"""
