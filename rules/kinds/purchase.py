from rules.kinds import Action, Hook, Pass, Show, StepKind, register

PURCHASE = register(
    StepKind(
        name="purchase",
        finish_ahead=True,
        passes=(Pass.NOTHING_TO_BUY,),
        summary="secret RG purchases within every limit of the chart",
        template="campaign/steps/purchase.html",
        actions=frozenset({Action.BUY, Action.CANCEL, Action.RG_ROLL}),
        shows=(Show.CHART, Show.MY_PURCHASES),
        on_complete=(Hook.LOSE_UNSPENT, Hook.REVEAL_PURCHASES),
        on_side_done=(Hook.ROLL_WHILE_BUYING,),
    )
)
