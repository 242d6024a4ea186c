"""Conversions used by the trip planner."""

KM_PER_MILE = 1.609344


def km_to_miles(km: float) -> float:
    """Kilometres in miles."""
    return km / KM_PER_MILE
