"""The verification checklist and its rules, which only judge: findings, report, citations, claims,
coverage, integrity, the claim-checker's verdicts and what a resumed run keeps."""
