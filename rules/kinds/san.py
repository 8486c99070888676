from rules.kinds import Action, Hook, Pass, Show, StepKind, register

SAN = register(
    StepKind(
        name="san",
        finish_ahead=True,
        passes=(Pass.NO_SAN_ROLL,),
        summary="SAN adjustment: SANs brought within the module's bounds, and a roll on "
        "the SAN table where the rule calls for one",
        template="campaign/steps/table.html",
        actions=frozenset({Action.ROLL}),
        shows=(Show.TABLES, Show.ROLLS),
        on_enter=(Hook.ADJUST_SAN,),
        needs="san",
    )
)
