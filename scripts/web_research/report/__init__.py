"""What code writes into report.md and what drives its checking to the end: references numbered,
Sources and Gaps entries written, the claim-checker's prompt and answer, finish's rounds."""
