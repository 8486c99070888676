from rules.kinds import Hook, StepKind, register

COMMENCE = register(
    StepKind(
        name="commence",
        summary="the scenario begins; who moves first is settled",
        template="campaign/steps/checklist.html",
        on_enter=(Hook.DECIDE_MOVES_FIRST,),
    )
)
