"""Check discovery, recorded runs and the badge (issue: Verification)."""
