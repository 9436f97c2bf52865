"""web-research: the mechanical core of the web-research Claude Code plugin.

Module map (one concern each):
  formats      shared vocabulary: file names, sections, fields, limits
  checks       the result type of every rule (`Check`, `Problem`); a leaf module
  exitcodes    the exit codes every subcommand shares
  schema_validation  the JSON Schemas in schemas/: loading, validating, naming the field
  slug         the slug rule for run folders and subtopics
  inputs       parsing and validating the arguments of `start`
  runfolder    output location, re-run protection, archiving
  plan         parsing plan.md
  briefs       rendering and hashing researcher briefs
  citations    parsing and checking [^n] citations
  findings     parsing findings files
  report       parsing report.md
  checklist    the verification checklist (pure: files in, checks out)
  transport / extraction   `fetch`: a page fetched safely, then its text extracted
  snapshots / excerpts     page snapshots and verbatim-excerpt checks
  matcher      where an excerpt stands in its page (verify, the view and recheck)
  guard        the hooks' core: run registry and decisions
  commands/    thin CLI adapters, one per subcommand
"""
__version__ = "0.1.0"
