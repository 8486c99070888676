from rules.kinds import Action, Pass, Show, StepKind, register

COMPUTE = register(
    StepKind(
        name="compute",
        passes=(Pass.NOTHING_TO_DECIDE,),
        summary="arithmetic done by the server (e.g. replenishment), shown line by line",
        template="campaign/steps/checklist.html",
        actions=frozenset({Action.FORGO}),
        shows=(Show.ARITHMETIC, Show.ROLLS, Show.FORGO),
    )
)
