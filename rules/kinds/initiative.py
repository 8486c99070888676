from rules.kinds import Action, Show, StepKind, register

INITIATIVE = register(
    StepKind(
        name="initiative",
        summary="each side locks a secret chit; both are revealed together on the matrix",
        template="campaign/steps/initiative.html",
        actions=frozenset({Action.CHIT, Action.DECLARE}),
        finishable=False,
        shows=(Show.CHITS,),
        needs="initiative",
    )
)
