from rules.kinds import Action, Hook, Pass, Show, StepKind, register

EXCHANGE = register(
    StepKind(
        name="exchange",
        summary=(
            "each unit the step names leaves the forces; for each, the owner may mark one "
            "of his units (APD 3.2: a Hero for a Battle Hardened MMC)"
        ),
        template="campaign/steps/exchange.html",
        actions=frozenset({Action.EXCHANGE}),
        shows=(Show.EXCHANGE,),
        on_side_done=(Hook.SETTLE_EXCHANGE,),
        passes=(Pass.NOTHING_TO_EXCHANGE,),
    )
)
