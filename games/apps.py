from django.apps import AppConfig

from games import metrics
from games.engine import solver


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # /metrics says which solver core runs here (the serve command says it at start).
        for core in ("native", "python"):
            metrics.solver_core.labels(core).set(1 if core == solver.CORE else 0)
