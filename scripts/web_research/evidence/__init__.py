"""Evidence: fetching pages safely, extracting their text, snapshots, the run ledger and the seals that make them trustworthy."""
