"""Thin command-line adapters, one module per subcommand (each exposes run(args) -> int)."""
