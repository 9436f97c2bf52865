"""What a run spent: usage folded from the ledger, measured metrics and their price."""
