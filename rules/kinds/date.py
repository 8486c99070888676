from rules.kinds import Hook, StepKind, register

DATE = register(
    StepKind(
        name="date",
        summary="the campaign moves to the next CG date (or ends after its last)",
        template="campaign/steps/checklist.html",
        on_enter=(Hook.NEW_DATE,),
    )
)
