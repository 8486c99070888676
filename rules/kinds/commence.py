from rules.kinds import Hook, Pass, StepKind, register

COMMENCE = register(
    StepKind(
        name="commence",
        passes=(Pass.ALWAYS,),
        summary="the scenario begins; who moves first is settled",
        template="campaign/steps/checklist.html",
        on_enter=(Hook.DECIDE_MOVES_FIRST, Hook.ANNOUNCE_SAN),
    )
)
