"""Permission rules and the gate's decision (issue: Engine core)."""
