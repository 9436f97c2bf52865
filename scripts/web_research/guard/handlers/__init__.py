"""The hook handlers: one module per event, and one per kind of call that needs what the others
must not load (guard/events.py's tables; the entry, guard/adapter.py, imports the one it runs).

Each module's function of the same name takes the hook's `state.Context` and returns a
`rules.decision.Decision`: it reads what the rules need (the run record, run files), asks
the rules in guard/rules/, and does what follows in guard/effects/. A handler imports only
what it runs; a handler shared by several (pre_tool_use.decide) is imported by name.
"""
