from rules.kinds import Action, Hook, Pass, Show, StepKind, register

STRENGTH = register(
    StepKind(
        name="strength",
        passes=(Pass.NOTHING_TO_ROLL,),
        summary="the secret post-purchase rolls (strength, SW, leaders) of each RG bought",
        template="campaign/steps/strength.html",
        actions=frozenset({Action.RG_ROLL}),
        shows=(Show.MY_PURCHASES,),
        on_side_done=(Hook.ROLL_REMAINING,),
        on_complete=(Hook.REVEAL_PURCHASES,),
    )
)
