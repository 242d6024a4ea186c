"""Greetings."""


def greet(name: str) -> str:
    """A friendly greeting."""
    return f"Hello, {name}!"
