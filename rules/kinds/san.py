from rules.kinds import Action, Show, StepKind, register

SAN = register(
    StepKind(
        name="san",
        finish_ahead=True,
        summary="SAN adjustment: a roll on the SAN table where the rule calls for one",
        template="campaign/steps/table.html",
        actions=frozenset({Action.ROLL}),
        shows=(Show.TABLES, Show.ROLLS),
    )
)
