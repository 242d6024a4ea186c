"""Say once per chat and model that the cost cap cannot be enforced for a model nobody prices.

With ``agents.session_cost_cap_usd`` set, a request whose price is unknown cannot count towards
the cap (it reads "price unknown", never $0). :class:`PriceNoticeExtension` warns before the
first request of a turn when the chat's model has no price at all (``[pricing]``, catalog and
built-in table all silent), and at the end of a turn for any model whose requests came back
unpriced (a fallback, a token type without a price); each model is named once per chat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.llm import ProviderClient
from zengine_jupyter.protocol import Notice

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine._turn import TurnOutcome

__all__ = ["PriceNoticeExtension", "cap_warning"]


def cap_warning(model: str, cap_usd: float, models_json: str) -> str:
    return (
        f"no price is known for {model}, so agents.session_cost_cap_usd (${cap_usd:.2f}) "
        f'cannot be enforced for it: its requests count as "price unknown", not towards the '
        f'cap; set [pricing."{model}"] in your settings (or its cost in {models_json}) to '
        "enforce it"
    )


class PriceNoticeExtension(SessionExtension):
    """The once-per-model warning that the cost cap cannot count a model's requests."""

    name = "prices"

    def __init__(self) -> None:
        self._warned: set[str] = set()

    async def turn_started(self, session: Session, turn_id: str) -> None:
        self._warn(session, turn_id, ahead=True)

    async def at_stop(self, session: Session, outcome: TurnOutcome) -> str | None:
        self._warn(session, outcome.turn_id, ahead=False)
        return None

    def _warn(self, session: Session, turn_id: str, *, ahead: bool) -> None:
        cap = session.settings.settings.agents.session_cost_cap_usd
        if cap is None:
            return
        models = list(session.meter.unknown_models)
        client = session.client
        if ahead and isinstance(client, ProviderClient):
            main = client.models[0]
            if client.pricer.price_for(main) is None:
                models.insert(0, main)
        catalog = session.catalog
        models_json = str(catalog.cache.user_path) if catalog is not None else "models.json"
        for model in dict.fromkeys(models):
            if model in self._warned:
                continue
            self._warned.add(model)
            text = cap_warning(model, cap, models_json)
            session.bus.publish(
                Notice(session_id=session.id, turn_id=turn_id, topic="cost", text=text)
            )
