"""The scripted model: scenario factories the sandbox wrapper loads by name.

Each factory takes the sandbox Context plus keyword arguments and returns a
Scenario. They drive the orchestrator and the researchers by the text the CLI
actually sent (skill body, briefs), never by copies of the prompts.
"""
