from rules.kinds import Pass, Show, StepKind, register

COMPUTE = register(
    StepKind(
        name="compute",
        passes=(Pass.ALWAYS,),
        summary="arithmetic done by the server (e.g. replenishment), shown line by line",
        template="campaign/steps/checklist.html",
        shows=(Show.ARITHMETIC, Show.ROLLS),
    )
)
