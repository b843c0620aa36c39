from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import metrics
        from games.engine import solver

        # /metrics says which solver core runs here (the serve command says it at start).
        for core in ("native", "python"):
            metrics.solver_core.labels(core).set(1 if core == solver.CORE else 0)
