"""transcript."""
