"""The Python member of the integrity suite (docs/integrity.md §7)."""
