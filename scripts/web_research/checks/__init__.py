"""The verification checklist and its rules: findings, report, citations, claims, coverage, integrity and the claim-checker's verdicts."""
