"""`web-research recheck`: are a finished report's citations still true on the live pages?

  record   the recheck record (checks/recheck-<UTC time>.json): its types, writing it, and
           `latest_recheck`, which `status` and the report view read
  judge    the pure rules: one citation's state from what its page answered now
  live     fetching the cited pages again, several at a time, as `fetch` does
  session  one recheck of a run folder: citations in, live texts and a record out
"""
