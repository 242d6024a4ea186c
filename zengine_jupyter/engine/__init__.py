"""The agent: sessions, the turn loop, tools and the gate (issue: Engine core)."""
