"""The run folder and its plan: where a run lives, its budget and estimate, the briefs rendered from the plan, resuming and abandoning."""
