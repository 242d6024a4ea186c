"""Language-server clients (issue: Language servers)."""
