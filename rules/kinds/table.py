from rules.kinds import Action, Show, StepKind, register

TABLE = register(
    StepKind(
        name="table",
        finish_ahead=True,
        summary="roll on the step's tables, once per item, with every DRM shown",
        template="campaign/steps/table.html",
        actions=frozenset({Action.ROLL}),
        shows=(Show.TABLES, Show.ROLLS, Show.UNITS),
    )
)
