"""The ModelClient port and the provider adapters (issue: Model providers)."""
