from rules.kinds import Action, Hook, Show, StepKind, register

FORTIFY = register(
    StepKind(
        name="fortify",
        summary="secret fortification purchases with FPP/DSP; unspent points may be forfeit",
        template="campaign/steps/fortify.html",
        actions=frozenset({Action.FORTIFY}),
        shows=(Show.FORTIFICATIONS,),
        on_side_done=(Hook.FORFEIT_FORTIFICATION_POINTS,),
        needs="fortifications",
    )
)
