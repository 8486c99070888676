from rules.kinds import Hook, Pass, StepKind, register

DATE = register(
    StepKind(
        name="date",
        passes=(Pass.ALWAYS,),
        summary="the campaign moves to the next CG date (or ends after its last)",
        template="campaign/steps/checklist.html",
        on_enter=(Hook.NEW_DATE,),
    )
)
