"""Shared plumbing with no research rules: files, records, hashes, slugs, Markdown, YAML frontmatter and JSON Schema."""
