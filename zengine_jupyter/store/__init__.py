"""SessionStore: one folder per chat, append-only log, crash repair and replay.

Built by the Session store issue.
"""
