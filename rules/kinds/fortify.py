from rules.kinds import Action, Hook, Pass, Show, StepKind, register

FORTIFY = register(
    StepKind(
        name="fortify",
        passes=(Pass.NO_FORTIFICATION_POINTS,),
        summary="secret fortification purchases with FPP/DSP; unspent points may be forfeit",
        template="campaign/steps/fortify.html",
        actions=frozenset({Action.FORTIFY}),
        shows=(Show.FORTIFICATIONS,),
        on_side_done=(Hook.FORFEIT_FORTIFICATION_POINTS,),
        needs="fortifications",
    )
)
