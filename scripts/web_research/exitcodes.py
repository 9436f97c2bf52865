"""Exit codes shared by every subcommand (a leaf module: the commands import it, not `cli`)."""

EXIT_OK = 0
EXIT_CHECK_FAILED = 1  # verify: an error-severity check failed
EXIT_USAGE = 2  # invalid input / cannot run
EXIT_PRIOR_RUN = 3  # start: prior run present and refresh is off
EXIT_OLDER_RULES = 4  # verify: a run made under older rules lacks only the current rules' round (no evidence fails)
EXIT_NO_VERDICT = 3  # recheck: nothing changed, moved or gone, but some pages could not be reached
EXIT_BROKEN_PIPE = 141  # the reader of our output went away (as a shell reports SIGPIPE)
