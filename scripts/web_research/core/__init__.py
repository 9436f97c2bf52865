"""Shared plumbing with no research rules: files, hashes, slugs, Markdown, YAML frontmatter and JSON Schema."""
